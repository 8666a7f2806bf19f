//! Another Rust static library, as any Rust project builds one: its own
//! copy of std, the panic runtime and the allocator shims, all global.
use std::panic;

/// The length of the numbers 0..n joined with commas.
#[no_mangle]
pub extern "C" fn other_joined_length(n: u32) -> u64 {
    let words: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    words.join(",").len() as u64
}

/// `n`, or -1 when `n` > 2, which panics and is caught here.
#[no_mangle]
pub extern "C" fn other_catch(n: i32) -> i32 {
    panic::set_hook(Box::new(|_| {})); // the caught panic prints nothing
    panic::catch_unwind(|| {
        if n > 2 {
            panic!("other: {n} is too large");
        }
        n
    })
    .unwrap_or(-1)
}
