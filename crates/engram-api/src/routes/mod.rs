pub mod add;
pub mod admin;
pub mod health;
pub mod jobs;
pub mod memories;
