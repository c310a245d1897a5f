pub mod add;
pub mod admin;
pub mod context;
pub mod gdpr;
pub mod health;
pub mod jobs;
pub mod memories;
pub mod sessions;
