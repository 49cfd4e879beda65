//! Record libtorch's library folder as a run path of the `shogilab` binary, so that it runs
//! without `LD_LIBRARY_PATH` once built with `scripts/build` (which sets `LIBTORCH`).

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if let Ok(dir) = std::env::var("LIBTORCH") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}/lib");
    }
}
