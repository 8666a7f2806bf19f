//! Compiles `jump.c`: a walk left by `longjmp` from its callback, which
//! the targets run through `ffi::walk_and_jump` (Rust cannot call
//! `setjmp`).
fn main() {
    println!("cargo:rerun-if-changed=jump.c");
    println!("cargo:rerun-if-changed=../include/slate.h");
    cc::Build::new()
        .file("jump.c")
        .include("../include")
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("slate_fuzz_jump");
}
