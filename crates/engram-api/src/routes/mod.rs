pub mod add;
pub mod health;
pub mod jobs;
pub mod memories;
