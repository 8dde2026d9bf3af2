//! The native JsonConverter: envelopes, the schema-text cache, payloads both ways.
//!
//! With `schemas.enable` a record is `{"schema":<schema>,"payload":<payload>}`. Java's
//! converter parses the schema of every record and looks it up in a cache of
//! `schemas.cache.size` schemas; here the schema's *text* is the cache key: a record whose
//! bytes after `{"schema":` start with the text of the previous record's schema, followed by
//! `,"payload":`, has that schema (a JSON value ends where its text ends), so it is compared,
//! not parsed. A schema text not seen before is handed to the Python converter once
//! (`resolve`: the text to a `Schema`, by the reference path's own rules and caches), then
//! remembered. Envelopes in any other form (fields in another order, extra whitespace that
//! breaks the comparison...) are left to the Python path.
//!
//! For encoding, the envelope's head `{"schema":<schema>,"payload":` of each schema is asked
//! of the Python converter once (`prefix_of`) and remembered by schema.

use crate::json::read::{Fallback, Reader, R};
use crate::json::write::Writer;
use crate::model::pyobj::PyObj;
use crate::model::schema::{NSchema, SchemaRef};
use crate::model::value::Value;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::{HashMap, VecDeque};

const HEAD: &[u8] = b"{\"schema\":";
const PAYLOAD: &[u8] = b",\"payload\":";
const NULL_PREFIX: &[u8] = b"{\"schema\":null,\"payload\":";

pub struct JsonState {
    pub schemas_enable: bool,
    pub decimal_numeric: bool,
    pub rnwd: bool,
    cache_size: usize,
    resolve: PyObj,
    prefix_of: PyObj,
    /// schema text -> schema (None: the text is `null`), bounded by `cache_size`
    by_text: HashMap<Box<[u8]>, Option<SchemaRef>>,
    order: VecDeque<Box<[u8]>>,
    last: Option<(Box<[u8]>, Option<SchemaRef>)>,
    /// schema (by its Python object) -> envelope head
    prefixes: HashMap<usize, (SchemaRef, Box<[u8]>)>,
    last_prefix: Option<(SchemaRef, Box<[u8]>)>,
}

impl JsonState {
    pub fn new(
        schemas_enable: bool,
        decimal_numeric: bool,
        rnwd: bool,
        cache_size: usize,
        resolve: PyObj,
        prefix_of: PyObj,
    ) -> JsonState {
        JsonState {
            schemas_enable,
            decimal_numeric,
            rnwd,
            cache_size: cache_size.max(1),
            resolve,
            prefix_of,
            by_text: HashMap::new(),
            order: VecDeque::new(),
            last: None,
            prefixes: HashMap::new(),
            last_prefix: None,
        }
    }

    fn schema_for_text(&mut self, py: Python<'_>, text: &[u8]) -> R<Option<SchemaRef>> {
        if let Some(s) = self.by_text.get(text) {
            return Ok(s.clone());
        }
        let got = self
            .resolve
            .bind(py)
            .call1((PyBytes::new(py, text),))
            .map_err(|_| Fallback)?;
        let schema = if got.is_none() {
            None
        } else {
            Some(NSchema::of(&got).map_err(|_| Fallback)?)
        };
        if self.order.len() >= self.cache_size {
            if let Some(old) = self.order.pop_front() {
                self.by_text.remove(&old);
            }
        }
        let key: Box<[u8]> = text.into();
        self.order.push_back(key.clone());
        self.by_text.insert(key, schema.clone());
        Ok(schema)
    }

    /// One record's bytes to (schema, value).
    pub fn decode(&mut self, py: Python<'_>, data: &[u8]) -> R<(Option<SchemaRef>, Value)> {
        if !self.schemas_enable {
            let mut rd = Reader::new(data, self.rnwd);
            if rd.at_end() {
                return Err(Fallback); // empty input: the Python path (Jackson's missing node)
            }
            let v = rd.any(0)?;
            return if rd.at_end() { Ok((None, v)) } else { Err(Fallback) };
        }
        if !data.starts_with(HEAD) || data.last() != Some(&b'}') {
            return Err(Fallback);
        }
        let rest = &data[HEAD.len()..];
        let (schema, payload_at) = match &self.last {
            Some((text, schema))
                if rest.starts_with(text) && rest[text.len()..].starts_with(PAYLOAD) =>
            {
                (schema.clone(), HEAD.len() + text.len() + PAYLOAD.len())
            }
            _ => {
                let mut rd = Reader::new(rest, self.rnwd);
                rd.skip_value(0)?;
                let end = rd.i;
                if !rest[end..].starts_with(PAYLOAD) {
                    return Err(Fallback);
                }
                let text = &rest[..end];
                let schema = self.schema_for_text(py, text)?;
                self.last = Some((text.into(), schema.clone()));
                (schema, HEAD.len() + end + PAYLOAD.len())
            }
        };
        let mut rd = Reader::new(&data[payload_at..data.len() - 1], self.rnwd);
        let v = match &schema {
            Some(s) => rd.typed(s, 0)?,
            None => rd.any(0)?,
        };
        if !rd.at_end() {
            return Err(Fallback);
        }
        Ok((schema, v))
    }

    fn prefix(&mut self, py: Python<'_>, s: &SchemaRef) -> R<Box<[u8]>> {
        if let Some((last, p)) = &self.last_prefix {
            if std::sync::Arc::ptr_eq(last, s) {
                return Ok(p.clone());
            }
        }
        let key = s.py.as_ptr() as usize;
        let p = match self.prefixes.get(&key) {
            Some((_, p)) => p.clone(),
            None => {
                let got = self
                    .prefix_of
                    .bind(py)
                    .call1((s.py.bind(py),))
                    .map_err(|_| Fallback)?;
                let p: Box<[u8]> = got.extract::<Vec<u8>>().map_err(|_| Fallback)?.into();
                if self.prefixes.len() >= self.cache_size {
                    self.prefixes.clear();
                }
                self.prefixes.insert(key, (s.clone(), p.clone()));
                p
            }
        };
        self.last_prefix = Some((s.clone(), p.clone()));
        Ok(p)
    }

    /// One (schema, value) to bytes; None for a tombstone (no schema, no value).
    pub fn encode(
        &mut self,
        py: Python<'_>,
        schema: Option<&SchemaRef>,
        v: &Value,
        out: &mut Vec<u8>,
    ) -> R<bool> {
        if schema.is_none() && v.is_null() {
            return Ok(false);
        }
        let start = out.len();
        if self.schemas_enable {
            match schema {
                Some(s) => {
                    let p = self.prefix(py, s)?;
                    out.extend_from_slice(&p);
                }
                None => out.extend_from_slice(NULL_PREFIX),
            }
        }
        let mut w = Writer {
            out: std::mem::take(out),
            decimal_numeric: self.decimal_numeric,
            rnwd: self.rnwd,
        };
        let r = match schema {
            Some(s) => w.typed(s, v),
            None => w.any(v),
        };
        *out = w.out;
        if r.is_err() {
            out.truncate(start);
            return Err(Fallback);
        }
        if self.schemas_enable {
            out.push(b'}');
        }
        Ok(true)
    }
}
