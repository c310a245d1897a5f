//! Mem0's `filters` (v2 grammar: `AND`/`OR`/`NOT`, `in`, `ne`, `gt`/`gte`/
//! `lt`/`lte`, `contains`/`icontains`, `"*"`), parsed once into an
//! expression that is (1) evaluated exactly on each memory in Mem0's shape
//! and (2) read for the Engram scopes (user, agent, session) that can hold
//! a match, which is what the REST calls are made for. Anything the grammar
//! does not have is a 400 naming the path of the offending key. Pure: no I/O.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use serde_json::{Map, Value};

use crate::error::Mem0Error;

/// Nesting deeper than this is refused (a filter is written by hand).
pub const MAX_DEPTH: usize = 8;
/// Conditions in one filter, at most.
pub const MAX_NODES: usize = 256;
/// Values of one `in`, at most.
pub const MAX_IN: usize = 100;
/// Scopes one filter may expand to (`user_id in [...]` × `agent_id in [...]`).
pub const MAX_SCOPES: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Cond(Field, Op),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    User,
    Agent,
    App,
    Run,
    CreatedAt,
    UpdatedAt,
    ExpirationDate,
    Categories,
    Metadata(String),
    Keywords,
    MemoryIds,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Eq(Value),
    Ne(Value),
    In(Vec<Value>),
    /// `"*"`: any value that is not null.
    Any,
    Gt(Instant),
    Gte(Instant),
    Lt(Instant),
    Lte(Instant),
    /// Time equality: the instant, or the whole day for a bare date.
    At(Instant),
    NotAt(Instant),
    Contains(String),
    IContains(String),
}

/// A time a filter names: an instant, or a calendar day (UTC).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Instant {
    pub start: DateTime<Utc>,
    /// Set for a bare date: the day's end (exclusive).
    pub day_end: Option<DateTime<Utc>>,
}

impl Field {
    fn parse(key: &str) -> Option<Field> {
        Some(match key {
            "user_id" => Field::User,
            "agent_id" => Field::Agent,
            "app_id" => Field::App,
            "run_id" => Field::Run,
            "created_at" | "timestamp" => Field::CreatedAt,
            "updated_at" => Field::UpdatedAt,
            "expiration_date" => Field::ExpirationDate,
            "categories" => Field::Categories,
            "keywords" | "text" => Field::Keywords,
            "memory_ids" => Field::MemoryIds,
            _ => return None,
        })
    }

    fn is_time(&self) -> bool {
        matches!(
            self,
            Field::CreatedAt | Field::UpdatedAt | Field::ExpirationDate
        )
    }

    fn is_entity(&self) -> bool {
        matches!(self, Field::User | Field::Agent | Field::App | Field::Run)
    }
}

const TOP_KEYS: &str = "AND, OR, NOT, user_id, agent_id, app_id, run_id, created_at, \
                        updated_at, timestamp, expiration_date, text, categories, metadata, \
                        keywords, memory_ids";

struct Parser {
    nodes: usize,
}

/// Parses a `filters` object; `path` names it in errors (`filters`).
pub fn parse(v: &Value, path: &str) -> Result<Expr, Mem0Error> {
    Parser { nodes: 0 }.object(v, path, 0)
}

impl Parser {
    fn count(&mut self, path: &str) -> Result<(), Mem0Error> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(Mem0Error::bad(
                path,
                format!("a filter may hold at most {MAX_NODES} conditions"),
            ));
        }
        Ok(())
    }

    fn object(&mut self, v: &Value, path: &str, depth: usize) -> Result<Expr, Mem0Error> {
        if depth > MAX_DEPTH {
            return Err(Mem0Error::bad(
                path,
                format!("filters may nest at most {MAX_DEPTH} deep"),
            ));
        }
        let map = v
            .as_object()
            .ok_or_else(|| Mem0Error::bad(path, "must be an object"))?;
        if map.is_empty() {
            return Err(Mem0Error::bad(path, "must hold at least one condition"));
        }
        let mut parts = Vec::with_capacity(map.len());
        for (key, value) in map {
            let at = format!("{path}.{key}");
            self.count(&at)?;
            parts.push(match key.as_str() {
                "AND" | "OR" => {
                    let items = value
                        .as_array()
                        .ok_or_else(|| Mem0Error::bad(&at, "must be a list of filters"))?;
                    if items.is_empty() {
                        return Err(Mem0Error::bad(&at, "must not be empty"));
                    }
                    let children = items
                        .iter()
                        .enumerate()
                        .map(|(i, c)| self.object(c, &format!("{at}[{i}]"), depth + 1))
                        .collect::<Result<Vec<_>, _>>()?;
                    if key == "AND" {
                        Expr::And(children)
                    } else {
                        Expr::Or(children)
                    }
                }
                "NOT" => {
                    // A list (each negated, all must hold) or one filter.
                    let inner = match value {
                        Value::Array(items) if !items.is_empty() => Expr::And(
                            items
                                .iter()
                                .enumerate()
                                .map(|(i, c)| self.object(c, &format!("{at}[{i}]"), depth + 1))
                                .collect::<Result<Vec<_>, _>>()?,
                        ),
                        Value::Object(_) => self.object(value, &at, depth + 1)?,
                        _ => return Err(Mem0Error::bad(&at, "must be a filter or a list of them")),
                    };
                    Expr::Not(Box::new(inner))
                }
                "metadata" => self.metadata(value, &at)?,
                other => match Field::parse(other) {
                    Some(field) => self.conditions(&field, value, &at)?,
                    None => {
                        return Err(Mem0Error::bad(
                            &at,
                            format!("is not a filter key; the keys are {TOP_KEYS}"),
                        ))
                    }
                },
            });
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            Expr::And(parts)
        })
    }

    fn metadata(&mut self, v: &Value, path: &str) -> Result<Expr, Mem0Error> {
        let map = v
            .as_object()
            .filter(|m| !m.is_empty())
            .ok_or_else(|| Mem0Error::bad(path, "must be an object of metadata keys"))?;
        let mut parts = Vec::new();
        for (key, value) in map {
            let at = format!("{path}.{key}");
            self.count(&at)?;
            let op = match value {
                Value::Object(ops) => {
                    let (name, arg) = single(ops, &at)?;
                    let at = format!("{at}.{name}");
                    match name.as_str() {
                        "eq" => Op::Eq(scalar(arg, &at)?),
                        "ne" => Op::Ne(scalar(arg, &at)?),
                        "contains" => Op::IContains(string(arg, &at)?),
                        _ => {
                            return Err(Mem0Error::bad(
                                &at,
                                "metadata takes eq, ne or contains (use OR for several values)",
                            ))
                        }
                    }
                }
                other => Op::Eq(scalar(other, &at)?),
            };
            parts.push(Expr::Cond(Field::Metadata(key.clone()), op));
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            Expr::And(parts)
        })
    }

    /// One field's conditions: a bare value, or an object of operators
    /// (several are ANDed: `{"gte": ..., "lte": ...}`).
    fn conditions(&mut self, field: &Field, v: &Value, path: &str) -> Result<Expr, Mem0Error> {
        let mut conds = Vec::new();
        match v {
            Value::Object(ops) if *field != Field::MemoryIds => {
                if ops.is_empty() {
                    return Err(Mem0Error::bad(path, "names no operator"));
                }
                for (name, arg) in ops {
                    self.count(path)?;
                    let one = Map::from_iter([(name.clone(), arg.clone())]);
                    conds.push(Expr::Cond(
                        field.clone(),
                        self.op(field, &Value::Object(one), path)?,
                    ));
                }
            }
            _ => conds.push(Expr::Cond(field.clone(), self.op(field, v, path)?)),
        }
        Ok(if conds.len() == 1 {
            conds.pop().expect("one condition")
        } else {
            Expr::And(conds)
        })
    }

    fn op(&mut self, field: &Field, v: &Value, path: &str) -> Result<Op, Mem0Error> {
        if *field == Field::MemoryIds {
            let list = match v {
                Value::Object(ops) => {
                    let (name, arg) = single(ops, path)?;
                    if name != "in" {
                        return Err(Mem0Error::bad(
                            format!("{path}.{name}"),
                            "memory_ids takes a list or in",
                        ));
                    }
                    list(arg, &format!("{path}.in"))?
                }
                other => list(other, path)?,
            };
            return Ok(Op::In(list));
        }
        let Value::Object(ops) = v else {
            if v.as_str() == Some("*") && field.is_entity() {
                return Ok(Op::Any);
            }
            return Ok(match field {
                f if f.is_time() => Op::At(instant(v, path)?),
                Field::Keywords => Op::Contains(string(v, path)?),
                Field::Categories => Op::In(vec![Value::String(string(v, path)?)]),
                _ => Op::Eq(Value::String(string(v, path)?)),
            });
        };
        let (name, arg) = single(ops, path)?;
        let at = format!("{path}.{name}");
        let refuse = |what: &str| Err(Mem0Error::bad(&at, what));
        match field {
            f if f.is_entity() => match name.as_str() {
                "eq" => Ok(Op::Eq(Value::String(string(arg, &at)?))),
                "ne" => Ok(Op::Ne(Value::String(string(arg, &at)?))),
                "in" => Ok(Op::In(list(arg, &at)?)),
                _ => refuse("an id takes eq, ne, in or \"*\""),
            },
            f if f.is_time() => match name.as_str() {
                "gt" => Ok(Op::Gt(instant(arg, &at)?)),
                "gte" => Ok(Op::Gte(instant(arg, &at)?)),
                "lt" => Ok(Op::Lt(instant(arg, &at)?)),
                "lte" => Ok(Op::Lte(instant(arg, &at)?)),
                "ne" => Ok(Op::NotAt(instant(arg, &at)?)),
                "in" => {
                    let items = list(arg, &at)?;
                    for (i, item) in items.iter().enumerate() {
                        instant(item, &format!("{at}[{i}]"))?;
                    }
                    Ok(Op::In(items))
                }
                _ => refuse("a time takes gt, gte, lt, lte, ne or in (a bare value for equality)"),
            },
            Field::Categories => match name.as_str() {
                "in" => Ok(Op::In(list(arg, &at)?)),
                "contains" => Ok(Op::IContains(string(arg, &at)?)),
                _ => refuse("categories take in or contains"),
            },
            Field::Keywords => match name.as_str() {
                "contains" => Ok(Op::Contains(string(arg, &at)?)),
                "icontains" => Ok(Op::IContains(string(arg, &at)?)),
                _ => refuse("keywords take contains or icontains"),
            },
            _ => refuse("is not an operator of this field"),
        }
    }
}

/// The one `{operator: argument}` pair of an operator object.
fn single<'a>(
    ops: &'a Map<String, Value>,
    path: &str,
) -> Result<(&'a String, &'a Value), Mem0Error> {
    let mut it = ops.iter();
    match (it.next(), it.next()) {
        (Some(pair), None) => Ok(pair),
        (None, _) => Err(Mem0Error::bad(path, "names no operator")),
        _ => Err(Mem0Error::bad(
            path,
            "one operator per condition (combine several with AND)",
        )),
    }
}

fn string(v: &Value, path: &str) -> Result<String, Mem0Error> {
    match v {
        Value::String(s) if !s.is_empty() && s.chars().count() <= 512 => Ok(s.clone()),
        Value::String(_) => Err(Mem0Error::bad(path, "must be 1 to 512 characters")),
        _ => Err(Mem0Error::bad(path, "must be a string")),
    }
}

fn scalar(v: &Value, path: &str) -> Result<Value, Mem0Error> {
    match v {
        Value::String(_) => string(v, path).map(Value::String),
        Value::Number(_) | Value::Bool(_) => Ok(v.clone()),
        _ => Err(Mem0Error::bad(path, "must be a string, number or boolean")),
    }
}

fn list(v: &Value, path: &str) -> Result<Vec<Value>, Mem0Error> {
    let items = v
        .as_array()
        .ok_or_else(|| Mem0Error::bad(path, "must be a list"))?;
    if items.is_empty() || items.len() > MAX_IN {
        return Err(Mem0Error::bad(
            path,
            format!("must hold 1 to {MAX_IN} values"),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| string(item, &format!("{path}[{i}]")).map(Value::String))
        .collect()
}

/// `2024-07-01`, an RFC 3339 time, or Unix seconds.
pub fn instant(v: &Value, path: &str) -> Result<Instant, Mem0Error> {
    let bad = || {
        Mem0Error::bad(
            path,
            "must be a date (YYYY-MM-DD), an RFC 3339 time or Unix seconds",
        )
    };
    match v {
        Value::Number(n) => {
            let secs = n.as_i64().ok_or_else(bad)?;
            let start = Utc.timestamp_opt(secs, 0).single().ok_or_else(bad)?;
            Ok(Instant {
                start,
                day_end: None,
            })
        }
        Value::String(s) => {
            if let Ok(day) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
                let start = day.and_hms_opt(0, 0, 0).ok_or_else(bad)?.and_utc();
                return Ok(Instant {
                    start,
                    day_end: Some(start + chrono::Duration::days(1)),
                });
            }
            let t = DateTime::parse_from_rfc3339(s).map_err(|_| bad())?;
            Ok(Instant {
                start: t.with_timezone(&Utc),
                day_end: None,
            })
        }
        _ => Err(bad()),
    }
}

impl Instant {
    /// Whether `t` is this time (within the day, for a bare date).
    fn holds(&self, t: DateTime<Utc>) -> bool {
        match self.day_end {
            Some(end) => self.start <= t && t < end,
            None => t == self.start,
        }
    }

    /// The last instant a `lte` of this accepts (a day's end for a date).
    fn upper(&self) -> DateTime<Utc> {
        self.day_end
            .map(|e| e - chrono::Duration::microseconds(1))
            .unwrap_or(self.start)
    }
}

/// Whether a memory in Mem0's shape (`memory`, `user_id`, `agent_id`,
/// `app_id`, `run_id`, `metadata`, `categories`, `created_at`, ...)
/// satisfies the filter.
pub fn matches(expr: &Expr, m: &Value) -> bool {
    match expr {
        Expr::And(parts) => parts.iter().all(|p| matches(p, m)),
        Expr::Or(parts) => parts.iter().any(|p| matches(p, m)),
        Expr::Not(inner) => !matches(inner, m),
        Expr::Cond(field, op) => holds(field, op, m),
    }
}

fn holds(field: &Field, op: &Op, m: &Value) -> bool {
    let value = match field {
        Field::User => &m["user_id"],
        Field::Agent => &m["agent_id"],
        Field::App => &m["app_id"],
        Field::Run => &m["run_id"],
        Field::CreatedAt => &m["created_at"],
        Field::UpdatedAt => &m["updated_at"],
        Field::ExpirationDate => &m["expiration_date"],
        Field::Categories => &m["categories"],
        Field::Metadata(k) => &m["metadata"][k],
        Field::Keywords => &m["memory"],
        Field::MemoryIds => &m["id"],
    };
    if field.is_time() {
        let Some(t) = time_of(value) else {
            return false;
        };
        return match op {
            Op::Gt(i) => t > i.upper(),
            Op::Gte(i) => t >= i.start,
            Op::Lt(i) => t < i.start,
            Op::Lte(i) => t <= i.upper(),
            Op::At(i) => i.holds(t),
            Op::NotAt(i) => !i.holds(t),
            Op::In(items) => items
                .iter()
                .any(|v| instant(v, "").map(|i| i.holds(t)).unwrap_or(false)),
            _ => false,
        };
    }
    match (field, op) {
        (Field::Categories, Op::In(items)) => value
            .as_array()
            .is_some_and(|cats| cats.iter().any(|c| items.contains(c))),
        (Field::Categories, Op::IContains(s)) => value.as_array().is_some_and(|cats| {
            cats.iter()
                .filter_map(Value::as_str)
                .any(|c| c.to_lowercase().contains(&s.to_lowercase()))
        }),
        (_, Op::Eq(v)) => loosely_equal(value, v),
        (_, Op::Ne(v)) => !loosely_equal(value, v),
        (_, Op::In(items)) => items.iter().any(|v| loosely_equal(value, v)),
        (_, Op::Any) => !value.is_null(),
        (_, Op::Contains(s)) => value.as_str().is_some_and(|t| t.contains(s.as_str())),
        (_, Op::IContains(s)) => match value {
            Value::String(t) => t.to_lowercase().contains(&s.to_lowercase()),
            Value::Array(items) => items
                .iter()
                .any(|i| loosely_equal(i, &Value::String(s.clone()))),
            _ => false,
        },
        _ => false,
    }
}

/// Equal, with a number or boolean also equal to its text (metadata from
/// JSON clients is typed; filters in query strings are text).
fn loosely_equal(a: &Value, b: &Value) -> bool {
    a == b
        || match (a, b) {
            (Value::String(s), Value::Number(_) | Value::Bool(_)) => {
                s.as_str() == b.to_string().as_str()
            }
            (Value::Number(_) | Value::Bool(_), Value::String(s)) => {
                s.as_str() == a.to_string().as_str()
            }
            _ => false,
        }
}

fn time_of(v: &Value) -> Option<DateTime<Utc>> {
    instant(v, "").ok().map(|i| i.start)
}

/// An Engram scope a match can be in: `None` is "any".
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ScopeKey {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
}

impl ScopeKey {
    pub fn is_open(&self) -> bool {
        self.user_id.is_none() && self.agent_id.is_none() && self.session_id.is_none()
    }

    fn merge(&self, other: &ScopeKey) -> Option<ScopeKey> {
        fn one(a: &Option<String>, b: &Option<String>) -> Result<Option<String>, ()> {
            match (a, b) {
                (Some(x), Some(y)) if x != y => Err(()),
                (Some(x), _) | (None, Some(x)) => Ok(Some(x.clone())),
                (None, None) => Ok(None),
            }
        }
        Some(ScopeKey {
            user_id: one(&self.user_id, &other.user_id).ok()?,
            agent_id: one(&self.agent_id, &other.agent_id).ok()?,
            session_id: one(&self.session_id, &other.session_id).ok()?,
        })
    }
}

/// Scopes that together hold every memory the filter can match (a cover,
/// not the answer: `matches` decides). An open scope (`is_open`) means the
/// filter names no user, agent or run there.
pub fn scopes(expr: &Expr) -> Result<Vec<ScopeKey>, Mem0Error> {
    let mut out = cover(expr)?;
    out.sort();
    out.dedup();
    Ok(out)
}

fn cover(expr: &Expr) -> Result<Vec<ScopeKey>, Mem0Error> {
    let too_many = || {
        Mem0Error::bad(
            "filters",
            format!("names more than {MAX_SCOPES} combinations of user_id, agent_id and run_id"),
        )
    };
    Ok(match expr {
        Expr::Cond(field, op) => {
            let values: Vec<String> = match op {
                Op::Eq(Value::String(v)) => vec![v.clone()],
                Op::In(items) => items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                _ => return Ok(vec![ScopeKey::default()]),
            };
            let make = |v: String| match field {
                Field::User => Some(ScopeKey {
                    user_id: Some(v),
                    ..Default::default()
                }),
                Field::Agent => Some(ScopeKey {
                    agent_id: Some(v),
                    ..Default::default()
                }),
                Field::Run => Some(ScopeKey {
                    session_id: Some(v),
                    ..Default::default()
                }),
                _ => None,
            };
            let keys: Option<Vec<ScopeKey>> = values.into_iter().map(make).collect();
            keys.unwrap_or_else(|| vec![ScopeKey::default()])
        }
        Expr::Not(_) => vec![ScopeKey::default()],
        Expr::Or(parts) => {
            let mut all = Vec::new();
            for p in parts {
                all.extend(cover(p)?);
                if all.len() > MAX_SCOPES {
                    return Err(too_many());
                }
            }
            all
        }
        Expr::And(parts) => {
            let mut acc = vec![ScopeKey::default()];
            for p in parts {
                let next = cover(p)?;
                let mut merged = Vec::new();
                for a in &acc {
                    for b in &next {
                        if let Some(m) = a.merge(b) {
                            merged.push(m);
                        }
                    }
                    if merged.len() > MAX_SCOPES {
                        return Err(too_many());
                    }
                }
                acc = merged;
            }
            acc
        }
    })
}

/// What the REST search can narrow by itself: the metadata equalities and
/// the creation range among the filter's top-level AND conditions. A
/// superset again; `matches` still decides.
#[derive(Debug, Default, PartialEq)]
pub struct Pushdown {
    pub metadata: Map<String, Value>,
    pub created_gte: Option<DateTime<Utc>>,
    pub created_lte: Option<DateTime<Utc>>,
}

pub fn pushdown(expr: &Expr) -> Pushdown {
    let mut p = Pushdown::default();
    let conds: Vec<&Expr> = match expr {
        Expr::And(parts) => parts.iter().collect(),
        other => vec![other],
    };
    for c in conds {
        match c {
            Expr::Cond(Field::Metadata(k), Op::Eq(v)) => {
                p.metadata.insert(k.clone(), v.clone());
            }
            Expr::Cond(Field::App, Op::Eq(v)) => {
                p.metadata.insert("app_id".into(), v.clone());
            }
            Expr::Cond(Field::CreatedAt, Op::Gte(i) | Op::Gt(i)) => {
                p.created_gte = p.created_gte.max(Some(i.start));
            }
            Expr::Cond(Field::CreatedAt, Op::Lte(i) | Op::Lt(i)) => {
                let upper = i.upper();
                p.created_lte = Some(p.created_lte.map_or(upper, |u| u.min(upper)));
            }
            Expr::And(_) => {}
            _ => {}
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn memory() -> Value {
        json!({"id": "a", "memory": "Likes cricket on Sundays", "user_id": "alice",
               "agent_id": null, "app_id": "shop", "run_id": "r1",
               "metadata": {"topic": "sport", "n": 3}, "categories": ["hobbies"],
               "created_at": "2024-07-05T10:00:00Z", "updated_at": "2024-07-06T10:00:00Z",
               "expiration_date": null})
    }

    fn eval(f: Value) -> bool {
        matches(&parse(&f, "filters").unwrap(), &memory())
    }

    #[test]
    fn the_documented_forms_evaluate() {
        assert!(eval(json!({"user_id": "alice"})));
        assert!(!eval(json!({"user_id": "bob"})));
        assert!(eval(
            json!({"AND": [{"user_id": "alice"}, {"run_id": "*"}]})
        ));
        assert!(!eval(
            json!({"AND": [{"user_id": "alice"}, {"agent_id": "*"}]})
        ));
        assert!(eval(json!({"OR": [{"user_id": "bob"}, {"run_id": "r1"}]})));
        assert!(eval(json!({"user_id": {"in": ["bob", "alice"]}})));
        assert!(eval(json!({"user_id": {"ne": "bob"}})));
        assert!(eval(json!({"NOT": {"categories": {"in": ["spam"]}}})));
        assert!(!eval(json!({"NOT": [{"categories": {"in": ["hobbies"]}}]})));
        assert!(eval(json!({"categories": {"contains": "HOBB"}})));
        assert!(eval(json!({"metadata": {"topic": "sport"}})));
        assert!(
            eval(json!({"metadata": {"n": "3"}})),
            "typed and text alike"
        );
        assert!(eval(json!({"metadata": {"topic": {"ne": "food"}}})));
        assert!(eval(json!({"keywords": {"icontains": "CRICKET"}})));
        assert!(!eval(json!({"keywords": {"contains": "CRICKET"}})));
        assert!(eval(
            json!({"created_at": {"gte": "2024-07-01", "lte": "2024-07-31"}})
        ));
        assert!(!eval(
            json!({"created_at": {"gte": "2024-07-06", "lte": "2024-07-31"}})
        ));
        assert!(
            eval(
                json!({"AND": [{"created_at": {"gte": "2024-07-01"}}, {"created_at": {"lte": "2024-07-05"}}]})
            ),
            "lte a date takes the whole day"
        );
        assert!(!eval(json!({"created_at": {"lt": "2024-07-05"}})));
        assert!(eval(json!({"created_at": "2024-07-05"})));
        assert!(eval(json!({"created_at": {"gt": 1_700_000_000}})));
        assert!(
            eval(json!({"app_id": "shop", "user_id": "alice"})),
            "siblings are ANDed"
        );
        assert!(eval(json!({"memory_ids": ["x", "a"]})));
    }

    #[test]
    fn what_the_grammar_lacks_is_refused_by_path() {
        for (f, path) in [
            (json!({"bogus": 1}), "filters.bogus"),
            (
                json!({"AND": [{"user_id": "a"}, {"created_at": {"between": 1}}]}),
                "filters.AND[1].created_at.between",
            ),
            (
                json!({"metadata": {"k": {"gt": 3}}}),
                "filters.metadata.k.gt",
            ),
            (json!({"user_id": {"gte": "a"}}), "filters.user_id.gte"),
            (json!({"user_id": {"in": []}}), "filters.user_id.in"),
            (
                json!({"created_at": {"gte": "last tuesday"}}),
                "filters.created_at.gte",
            ),
            (json!({"AND": {}}), "filters.AND"),
            (json!({}), "filters"),
            (json!({"user_id": {}}), "filters.user_id"),
        ] {
            let e = parse(&f, "filters").unwrap_err();
            assert_eq!(e.field.as_deref(), Some(path), "{f}: {}", e.detail);
        }
    }

    #[test]
    fn deep_and_wide_filters_are_refused() {
        let mut f = json!({"user_id": "a"});
        for _ in 0..50 {
            f = json!({"AND": [f]});
        }
        let e = parse(&f, "filters").unwrap_err();
        assert!(e.detail.contains("nest"), "{}", e.detail);
        let wide: Vec<Value> = (0..300)
            .map(|i| json!({"user_id": format!("u{i}")}))
            .collect();
        let e = parse(&json!({"OR": wide}), "filters").unwrap_err();
        assert!(e.detail.contains("at most"), "{}", e.detail);
    }

    #[test]
    fn scopes_cover_every_match() {
        let s = |f: Value| scopes(&parse(&f, "filters").unwrap()).unwrap();
        let key = |u: Option<&str>, a: Option<&str>, r: Option<&str>| ScopeKey {
            user_id: u.map(Into::into),
            agent_id: a.map(Into::into),
            session_id: r.map(Into::into),
        };
        assert_eq!(
            s(json!({"user_id": "alice"})),
            vec![key(Some("alice"), None, None)]
        );
        assert_eq!(
            s(json!({"AND": [{"user_id": {"in": ["a", "b"]}}, {"agent_id": "x"}]})),
            vec![
                key(Some("a"), Some("x"), None),
                key(Some("b"), Some("x"), None)
            ]
        );
        assert_eq!(
            s(json!({"OR": [{"user_id": "a"}, {"run_id": "r"}]})),
            vec![key(None, None, Some("r")), key(Some("a"), None, None)]
        );
        assert_eq!(
            s(json!({"AND": [{"user_id": "a"}, {"user_id": "b"}]})),
            vec![]
        );
        assert!(s(json!({"user_id": "*"}))[0].is_open());
        assert!(s(json!({"NOT": {"user_id": "a"}}))[0].is_open());
        let many: Vec<String> = (0..9).map(|i| format!("u{i}")).collect();
        let f = json!({"AND": [{"user_id": {"in": many}}, {"agent_id": {"in": many}}]});
        assert!(scopes(&parse(&f, "filters").unwrap()).is_err(), "81 scopes");
    }

    #[test]
    fn pushdown_takes_only_top_level_conjuncts() {
        let p = pushdown(&parse(&json!({"AND": [{"user_id": "a"}, {"metadata": {"k": "v"}}, {"created_at": {"gte": "2024-01-01"}}, {"OR": [{"metadata": {"z": 1}}]}]}), "filters").unwrap());
        assert_eq!(p.metadata, json!({"k": "v"}).as_object().unwrap().clone());
        assert!(p.created_gte.is_some() && p.created_lte.is_none());
    }
}
