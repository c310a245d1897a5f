//! The read path's pure parts: how a result's score is made, fusing the
//! dense and lexical signals, and the dates a query names.

pub mod evidence;
pub mod hybrid;
pub mod querytime;
pub mod scoring;
