//! Connect records held natively: `NRecord`, the fields of a `SinkRecord` or `SourceRecord`.

use crate::model::pyobj::PyObj;
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, Value};
use std::sync::Arc;

/// A topic name with its Python string, shared by every record of a batch that has it.
pub struct TopicName {
    pub name: Str,
    pub py: PyObj,
}

pub type Topic = Arc<TopicName>;

/// One Connect header: key, schema, value.
#[derive(Clone)]
pub struct NHeader {
    pub key: Str,
    pub schema: Option<SchemaRef>,
    pub value: Value,
}

/// What a sink record has beyond `ConnectRecord`'s fields.
#[derive(Clone)]
pub struct SinkMeta {
    pub offset: i64,
    /// 0 NoTimestampType, 1 CreateTime, 2 LogAppendTime.
    pub timestamp_type: u8,
    pub original_topic: Topic,
    pub original_partition: i32,
    pub original_offset: i64,
}

/// What a source record has beyond `ConnectRecord`'s fields: the connector's own maps, kept
/// as the Python objects the task returned.
#[derive(Clone)]
pub struct SourceMeta {
    pub source_partition: PyObj,
    pub source_offset: PyObj,
}

#[derive(Clone)]
pub enum Meta {
    Sink(SinkMeta),
    Source(SourceMeta),
}

#[derive(Clone)]
pub struct NRecord {
    pub topic: Topic,
    /// None: no partition chosen (a source record's `kafka_partition=None`).
    pub partition: Option<i32>,
    pub key_schema: Option<SchemaRef>,
    pub key: Value,
    pub value_schema: Option<SchemaRef>,
    pub value: Value,
    pub timestamp: Option<i64>,
    /// None and an empty list both mean "no headers".
    pub headers: Option<Vec<NHeader>>,
    pub meta: Meta,
}

impl NRecord {
    #[inline]
    pub fn has_headers(&self) -> bool {
        self.headers.as_ref().is_some_and(|h| !h.is_empty())
    }

    /// The schema and value of one side (key or value).
    #[inline]
    pub fn side(&self, key: bool) -> (&Option<SchemaRef>, &Value) {
        if key {
            (&self.key_schema, &self.key)
        } else {
            (&self.value_schema, &self.value)
        }
    }

    #[inline]
    pub fn side_mut(&mut self, key: bool) -> (&mut Option<SchemaRef>, &mut Value) {
        if key {
            (&mut self.key_schema, &mut self.key)
        } else {
            (&mut self.value_schema, &mut self.value)
        }
    }
}
