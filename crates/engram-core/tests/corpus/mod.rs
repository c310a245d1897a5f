//! Evaluation corpora shared by the policy and statement evaluations (and
//! by engram-server's HTTP tests, through `#[path]`).
#![allow(dead_code)]

pub mod held_out;
pub mod instructions;
pub mod secrets;
pub mod statements;
pub mod statements_held_out;
