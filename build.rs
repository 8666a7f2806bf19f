//! Gives the shared library its SONAME on ELF targets, from the crate
//! version by cargo-c's rule: `libslate.so.MAJOR` from 1.0 on, and
//! `libslate.so.0.MINOR` before it (every 0.x minor release may break the
//! ABI). `make install` installs `libslate.so.X.Y.Z` under that name.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let elf = matches!(
        std::env::var("CARGO_CFG_TARGET_OS").as_deref(),
        Ok("linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly")
    );
    if !elf {
        return;
    }
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_default();
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_default();
    let soname = if major == "0" {
        format!("libslate.so.0.{minor}")
    } else {
        format!("libslate.so.{major}")
    };
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
}
