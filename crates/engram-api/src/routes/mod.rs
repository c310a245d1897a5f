pub mod health;
pub mod memories;
