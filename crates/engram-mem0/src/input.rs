//! Mem0 request bodies, each field the released clients send named here:
//! an unknown one is a 400 naming it, and one Engram has no counterpart
//! for is refused by name rather than silently dropped.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::Mem0Error;
use crate::shape::{self, APP_KEY};

/// Parses a JSON body; errors name the path (`messages[0].role`).
pub fn body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Mem0Error> {
    if bytes.is_empty() {
        return Err(Mem0Error::bad("body", "a JSON object is required"));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path.is_empty() {
            "body".to_owned()
        } else {
            path
        };
        let message = e.inner().to_string();
        // serde's message ends with "at line 1 column N": the field says where.
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_owned();
        Mem0Error::bad(field, message)
    })
}

/// The scope fields of Mem0's calls: top level (add, OSS) or the flat
/// entity keys of an add's `filters`.
#[derive(Debug, Default, Clone)]
pub struct Entities {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub app_id: Option<String>,
    pub run_id: Option<String>,
}

impl Entities {
    pub fn any(&self) -> bool {
        self.user_id.is_some() || self.agent_id.is_some() || self.run_id.is_some()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddBody {
    pub messages: Value,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub app_id: Option<String>,
    pub run_id: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub infer: Option<bool>,
    pub filters: Option<Map<String, Value>>,
    /// Unix seconds: when the messages were said.
    pub timestamp: Option<i64>,
    pub expiration_date: Option<String>,
    /// Kept out of decay and consolidation: Engram's `pinned`.
    pub immutable: Option<bool>,
    pub output_format: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub version: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub async_mode: Option<bool>,
    pub enable_graph: Option<bool>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub org_id: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub project_id: Option<String>,
    // The OSS server's.
    pub memory_type: Option<String>,
    pub prompt: Option<String>,
    // Named so that they are refused by name (see `refuse_unsupported`).
    pub custom_categories: Option<Value>,
    pub custom_instructions: Option<Value>,
    pub agent_custom_instructions: Option<Value>,
    pub includes: Option<Value>,
    pub excludes: Option<Value>,
    pub structured_data_schema: Option<Value>,
}

impl AddBody {
    /// The native `POST /v1/memories` body this add is.
    pub fn to_engram(&self) -> Result<Value, Mem0Error> {
        self.refuse_unsupported()?;
        let entities = self.entities()?;
        if !entities.any() {
            return Err(Mem0Error::bad(
                "user_id",
                "at least one of user_id, agent_id or run_id is required",
            ));
        }
        let created_at = self
            .timestamp
            .map(|t| {
                chrono::DateTime::from_timestamp(t, 0)
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                    .ok_or_else(|| Mem0Error::bad("timestamp", "must be Unix seconds"))
            })
            .transpose()?;
        let messages = messages(&self.messages, created_at.as_deref())?;
        let mut metadata = self.metadata.clone().unwrap_or_default();
        if let Some(app) = &entities.app_id {
            match metadata.get(APP_KEY) {
                Some(v) if v != &json!(app) => {
                    return Err(Mem0Error::bad(
                        "metadata.app_id",
                        "differs from app_id (Engram keeps app_id in metadata)",
                    ))
                }
                _ => {
                    metadata.insert(APP_KEY.into(), json!(app));
                }
            }
        }
        let mut native = json!({
            "messages": messages,
            "infer": self.infer.unwrap_or(true),
        });
        for (k, v) in [
            ("user_id", &entities.user_id),
            ("agent_id", &entities.agent_id),
            ("session_id", &entities.run_id),
        ] {
            if let Some(v) = v {
                native[k] = json!(v);
            }
        }
        if !metadata.is_empty() {
            native["metadata"] = Value::Object(metadata);
        }
        if let Some(d) = &self.expiration_date {
            native["expires_at"] = json!(expiration(d)?);
        }
        if let Some(p) = self.immutable {
            native["pinned"] = json!(p);
        }
        Ok(native)
    }

    fn refuse_unsupported(&self) -> Result<(), Mem0Error> {
        let named = [
            ("custom_categories", self.custom_categories.is_some()),
            ("custom_instructions", self.custom_instructions.is_some()),
            (
                "agent_custom_instructions",
                self.agent_custom_instructions.is_some(),
            ),
            ("includes", self.includes.is_some()),
            ("excludes", self.excludes.is_some()),
            (
                "structured_data_schema",
                self.structured_data_schema.is_some(),
            ),
            ("prompt", self.prompt.is_some()),
            ("enable_graph", self.enable_graph == Some(true)),
        ];
        if let Some((field, _)) = named.iter().find(|(_, set)| *set) {
            return Err(Mem0Error::bad(
                *field,
                "is not supported by Engram: extraction is configured on the server (docs/MEM0.md)",
            ));
        }
        output_format(&self.output_format)?;
        if let Some(t) = self.memory_type.as_deref().filter(|t| *t != "core") {
            return Err(Mem0Error::bad(
                "memory_type",
                format!("{t:?} is not supported"),
            ));
        }
        Ok(())
    }

    /// Top-level ids and the flat ids of `filters`, which must agree.
    fn entities(&self) -> Result<Entities, Mem0Error> {
        let mut e = Entities {
            user_id: self.user_id.clone(),
            agent_id: self.agent_id.clone(),
            app_id: self.app_id.clone(),
            run_id: self.run_id.clone(),
        };
        for (k, v) in self.filters.iter().flatten() {
            let at = format!("filters.{k}");
            let slot = match k.as_str() {
                "user_id" => &mut e.user_id,
                "agent_id" => &mut e.agent_id,
                "app_id" => &mut e.app_id,
                "run_id" => &mut e.run_id,
                _ => {
                    return Err(Mem0Error::bad(
                        at,
                        "an add's filters name only user_id, agent_id, app_id or run_id",
                    ))
                }
            };
            let v = v
                .as_str()
                .ok_or_else(|| Mem0Error::bad(&at, "must be a string"))?;
            match slot {
                Some(existing) if existing != v => {
                    return Err(Mem0Error::bad(at, "differs from the top-level value"))
                }
                _ => *slot = Some(v.to_owned()),
            }
        }
        Ok(e)
    }
}

/// Mem0's messages (a list of `{role, content}`; a string or one message
/// is accepted as the OSS does) as Engram's.
fn messages(v: &Value, created_at: Option<&str>) -> Result<Value, Mem0Error> {
    let list = match v {
        Value::String(s) => vec![json!({"role": "user", "content": s})],
        Value::Object(_) => vec![v.clone()],
        Value::Array(items) if !items.is_empty() => items.clone(),
        _ => {
            return Err(Mem0Error::bad(
                "messages",
                "give a non-empty list of {role, content}",
            ))
        }
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, m) in list.iter().enumerate() {
        let at = |f: &str| format!("messages[{i}]{f}");
        let obj = m
            .as_object()
            .ok_or_else(|| Mem0Error::bad(at(""), "must be an object {role, content}"))?;
        if let Some(extra) = obj
            .keys()
            .find(|k| !matches!(k.as_str(), "role" | "content" | "name"))
        {
            return Err(Mem0Error::bad(
                at(&format!(".{extra}")),
                "is not a message field",
            ));
        }
        let role = obj.get("role").and_then(Value::as_str).unwrap_or("user");
        if !matches!(role, "user" | "assistant" | "system") {
            return Err(Mem0Error::bad(
                at(".role"),
                "must be user, assistant or system",
            ));
        }
        let content = obj.get("content").and_then(Value::as_str).ok_or_else(|| {
            Mem0Error::bad(at(".content"), "must be text (images are not supported)")
        })?;
        let mut native = json!({"role": role, "content": content});
        if let Some(n) = obj.get("name") {
            native["name"] = n.clone();
        }
        if let Some(t) = created_at {
            native["created_at"] = json!(t);
        }
        out.push(native);
    }
    Ok(Value::Array(out))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchBody {
    pub query: String,
    pub filters: Option<Value>,
    pub top_k: Option<i64>,
    pub threshold: Option<f64>,
    pub rerank: Option<bool>,
    pub keyword_search: Option<bool>,
    pub fields: Option<Vec<String>>,
    pub categories: Option<Vec<String>>,
    pub show_expired: Option<bool>,
    pub reference_date: Option<Value>,
    /// Engram answers only the latest version anyway (superseded memories stay out).
    #[allow(dead_code)]
    pub latest_only: Option<bool>,
    pub metadata: Option<Map<String, Value>>,
    pub output_format: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub source: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub version: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub org_id: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub project_id: Option<String>,
    // The OSS server's (top-level ids are deprecated there, refused on Platform).
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub run_id: Option<String>,
    pub explain: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListBody {
    pub filters: Option<Value>,
    pub show_expired: Option<bool>,
    pub start_date: Option<String>,
    pub end_date: Option<String>,
    pub categories: Option<Vec<String>>,
    pub fields: Option<Vec<String>>,
    pub keywords: Option<String>,
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    /// Engram answers only the latest version anyway (superseded memories stay out).
    #[allow(dead_code)]
    pub latest_only: Option<bool>,
    pub output_format: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub version: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub org_id: Option<String>,
    /// Accepted and without effect (client bookkeeping; see docs/MEM0.md).
    #[allow(dead_code)]
    pub project_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateBody {
    pub text: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub timestamp: Option<Value>,
    /// Absent leaves the expiry; `null` clears it.
    #[serde(default, deserialize_with = "present")]
    pub expiration_date: Option<Option<String>>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

impl UpdateBody {
    /// The native PATCH body; `app_id` (kept in metadata) survives a
    /// metadata replacement.
    pub fn to_engram(&self, current_app: Option<&Value>) -> Result<Value, Mem0Error> {
        if self.timestamp.is_some() {
            return Err(Mem0Error::bad(
                "timestamp",
                "Engram keeps when a memory was made; it cannot be changed",
            ));
        }
        let mut patch = json!({});
        if let Some(t) = &self.text {
            patch["memory"] = json!(t);
        }
        if let Some(m) = &self.metadata {
            let mut m = m.clone();
            if let Some(app) = current_app.filter(|a| !a.is_null()) {
                m.entry(APP_KEY).or_insert_with(|| app.clone());
            }
            patch["metadata"] = Value::Object(m);
        }
        match &self.expiration_date {
            Some(Some(d)) => patch["expires_at"] = json!(expiration(d)?),
            Some(None) => patch["expires_at"] = Value::Null,
            None => {}
        }
        if patch.as_object().is_some_and(Map::is_empty) {
            return Err(Mem0Error::bad(
                "text",
                "give at least one of text, metadata or expiration_date",
            ));
        }
        Ok(patch)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchBody {
    pub memories: Vec<BatchItem>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchItem {
    pub memory_id: String,
    pub text: Option<String>,
    pub metadata: Option<Map<String, Value>>,
}

/// Only Mem0's v1.1 answers are served: another `output_format` is refused.
pub fn output_format(v: &Option<String>) -> Result<(), Mem0Error> {
    match v.as_deref() {
        Some(f) if f != "v1.1" => Err(Mem0Error::bad(
            "output_format",
            format!("{f:?} is not served; Engram answers in v1.1"),
        )),
        _ => Ok(()),
    }
}

/// An `expiration_date` as Engram's `expires_at`.
fn expiration(date: &str) -> Result<String, Mem0Error> {
    shape::expires_at(date)
        .ok_or_else(|| Mem0Error::bad("expiration_date", "must be a date, YYYY-MM-DD"))
}

/// A memory id from a path or a body: a UUID, else a 400 naming `field`.
pub fn memory_id(s: &str, field: &str) -> Result<uuid::Uuid, Mem0Error> {
    uuid::Uuid::try_parse(s).map_err(|_| Mem0Error::bad(field, "is not a memory id (a UUID)"))
}
