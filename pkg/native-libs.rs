// An empty crate: meson.build builds it as a static library to learn from
// rustc which system libraries a static Rust library needs on this machine.
