//! The request headers Engram reads beyond HTTP's own, named once for the
//! authentication that reads them and the errors that name them.

/// The header an admin key names the tenant to act in with (id or name).
/// Tenant and read-only keys may send it only with their own tenant.
pub const TENANT_HEADER: &str = "x-engram-tenant";
