//! The write path's pure parts, in the order a job meets them: the write
//! policy (`policy`: secrets, instructions, sensitive categories), the
//! extractors (`extract`: rules, or an LLM's checked output) and the
//! decision rules (`decide`: add, supersede, merge, retract, forget, skip);
//! beside them, what was said kept as it was said (`said`: the episodic
//! layer's pieces).

pub mod decide;
pub mod extract;
pub mod policy;
pub mod said;
