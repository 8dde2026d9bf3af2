//! `RecordBatch`: a batch of Connect records kept in the native model from the converter to
//! the sink or the producer.
//!
//! Lifecycle (task thread only, GIL held): the sink loop builds one with `from_messages`
//! (converting keys and values with the native converters and naming the records whose key,
//! value or headers the Python converters must do), the source loop with `from_records` (what
//! the task's `poll` returned); the transformation chain runs over it (`crate::smt`); the batch
//! is handed to the sink task's `put` (a `Sequence[SinkRecord]`) or encoded for the producer.
//!
//! Each record is in one of three states: native (`Slot::Native`), a Python record
//! (`Slot::Py`: made on request, or what a Python stage returned -- from then on the Python
//! object is the record, so anything Python code changed in it is kept), or dropped. As a
//! sequence, a batch holds its records that are not dropped, in order; reading one makes its
//! Python record (once), so a Python plugin sees exactly the `kconnect.api` objects it would
//! see on the pure-Python path and pays only for the records it reads.

use crate::convert::Converter;
use crate::model::pyobj::PyObj;
use crate::model::record::{Meta, NRecord, SinkMeta};
use crate::pyconv::from_py::value_of_ptr;
use crate::pyconv::records::{headers_of_py, record_of_py, record_to_py, Topics};
use crate::model::schema::NSchema;
use crate::consumed::MessageReader;
use crate::smt::{Outcome, Step};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PySlice};

#[derive(Clone)]
pub enum Slot {
    Native(NRecord),
    Py(PyObj),
    Dropped,
}

#[pyclass(module = "kconnect_native", sequence)]
pub struct RecordBatch {
    pub slots: Vec<Slot>,
    /// indexes of the slots that are not dropped (None: to be recounted)
    live: Option<Vec<usize>>,
}

fn parse_sources(sources: Vec<(u8, Option<String>)>) -> Option<Vec<crate::jdbc_rows::Source>> {
    sources
        .into_iter()
        .map(|(k, n)| crate::jdbc_rows::Source::parse(k, n))
        .collect()
}

impl RecordBatch {
    /// The topic of the live record at position `j`.
    fn topic_at(&mut self, py: Python<'_>, j: usize) -> PyResult<String> {
        let i = self.live()[j];
        match &self.slots[i] {
            Slot::Native(r) => Ok(r.topic.name.to_string()),
            _ => {
                let rec = self.materialize(py, i)?;
                rec.bind(py).getattr("topic")?.extract()
            }
        }
    }

    pub fn new(slots: Vec<Slot>) -> RecordBatch {
        RecordBatch { slots, live: None }
    }

    pub fn live(&mut self) -> &[usize] {
        if self.live.is_none() {
            self.live = Some(
                self.slots
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| !matches!(s, Slot::Dropped))
                    .map(|(i, _)| i)
                    .collect(),
            );
        }
        self.live.as_deref().unwrap()
    }

    pub fn changed(&mut self) {
        self.live = None;
    }

    /// Slot `i` as a Python record (made now if native; then it stays the Python one).
    pub fn materialize(&mut self, py: Python<'_>, i: usize) -> PyResult<PyObj> {
        let made = match &self.slots[i] {
            Slot::Py(o) => return Ok(o.clone()),
            Slot::Dropped => return Ok(PyObj::none()),
            Slot::Native(r) => record_to_py(py, r)?,
        };
        self.slots[i] = Slot::Py(made.clone());
        Ok(made)
    }

    fn check(&self, i: usize) -> PyResult<()> {
        if i >= self.slots.len() {
            return Err(PyIndexError::new_err("record index out of range"));
        }
        Ok(())
    }

    fn native_mut(&mut self, i: usize) -> PyResult<&mut NRecord> {
        self.check(i)?;
        match &mut self.slots[i] {
            Slot::Native(r) => Ok(r),
            _ => Err(PyValueError::new_err("record is not native")),
        }
    }
}

#[pymethods]
impl RecordBatch {
    /// A consumed batch (confluent-kafka `Message`s of one class) with keys and values
    /// converted natively: `(batch, redo_keys, redo_values, with_headers)`, the indexes whose
    /// key or value the Python converter must convert and of those that have headers (the
    /// Python header converter converts them; `set_key`, `set_value`, `set_headers` or
    /// `drop` then fill them in). With `header_converter` (a native form) headers are
    /// converted here too, and only those it hands back are named. None when the messages are
    /// not plain `Message`s.
    #[staticmethod]
    #[pyo3(signature = (msgs, key_converter, value_converter, header_converter=None))]
    #[allow(clippy::type_complexity)]
    fn from_messages(
        py: Python<'_>,
        msgs: Bound<'_, PyList>,
        key_converter: Bound<'_, Converter>,
        value_converter: Bound<'_, Converter>,
        header_converter: Option<Bound<'_, Converter>>,
    ) -> PyResult<Option<(RecordBatch, Vec<usize>, Vec<usize>, Vec<usize>)>> {
        let n = msgs.len();
        let mut slots = Vec::with_capacity(n);
        let (mut redo_keys, mut redo_values, mut with_headers) = (Vec::new(), Vec::new(), Vec::new());
        if n == 0 {
            return Ok(Some((RecordBatch::new(slots), redo_keys, redo_values, with_headers)));
        }
        let mut kc = key_converter.borrow_mut();
        let mut vc = if key_converter.is(&value_converter) {
            None
        } else {
            Some(value_converter.borrow_mut())
        };
        let mut hc = match &header_converter {
            Some(h) if !h.is(&key_converter) && !h.is(&value_converter) => Some(h.borrow_mut()),
            _ => None,
        };
        let mut topics = Topics::default();
        unsafe {
            let Some(reader) = MessageReader::for_message(py, ffi::PyList_GET_ITEM(msgs.as_ptr(), 0))? else {
                return Ok(None);
            };
            for i in 0..n {
                let m = ffi::PyList_GET_ITEM(msgs.as_ptr(), i as isize);
                if !reader.reads(m) {
                    return Ok(None);
                }
                let Some(fields) = reader.read(py, m)? else {
                    return Ok(None);
                };
                let Some(topic) = topics.of_py(fields.topic.as_ptr()) else {
                    return Ok(None);
                };
                let (partition, offset) = (fields.partition, fields.offset);
                let (ts_type, ts_value) = (fields.timestamp_type, fields.timestamp);
                let (key, value, headers) = (fields.key, fields.value, fields.headers);
                let (key_schema, key) = match kc.decode_obj(py, Some(&topic), key.as_ptr()) {
                    Some(Ok(kv)) => kv,
                    _ => {
                        redo_keys.push(i);
                        (None, crate::model::value::Value::Null)
                    }
                };
                let conv = match vc.as_mut() {
                    Some(v) => &mut **v,
                    None => &mut *kc,
                };
                let (value_schema, value) = match conv.decode_obj(py, Some(&topic), value.as_ptr()) {
                    Some(Ok(kv)) => kv,
                    _ => {
                        redo_values.push(i);
                        (None, crate::model::value::Value::Null)
                    }
                };
                let h = headers.as_ptr();
                let mut native_headers = None;
                if h != ffi::Py_None() && ffi::PyObject_IsTrue(h) == 1 {
                    native_headers = hc.as_mut().and_then(|c| decode_headers(py, c, h));
                    if native_headers.is_none() {
                        with_headers.push(i);
                    }
                }
                let partition = partition as i32;
                slots.push(Slot::Native(NRecord {
                    topic: topic.clone(),
                    partition: Some(partition),
                    key_schema,
                    key,
                    value_schema,
                    value,
                    timestamp: if ts_type != 0 { Some(ts_value) } else { None },
                    headers: native_headers,
                    meta: Meta::Sink(SinkMeta {
                        offset,
                        timestamp_type: if (0..3).contains(&ts_type) { ts_type as u8 } else { 0 },
                        original_topic: topic,
                        original_partition: partition,
                        original_offset: offset,
                    }),
                }));
            }
        }
        Ok(Some((RecordBatch::new(slots), redo_keys, redo_values, with_headers)))
    }

    /// A batch of the records a task or transformation made (`SinkRecord`s or
    /// `SourceRecord`s): each one taken into the native model when it can be, else kept as is.
    #[staticmethod]
    fn from_records(py: Python<'_>, records: Bound<'_, PyList>) -> RecordBatch {
        let mut topics = Topics::default();
        let slots = records
            .iter()
            .map(|r| unsafe {
                if r.is_none() {
                    Slot::Dropped
                } else {
                    match record_of_py(py, r.as_ptr(), &mut topics) {
                        Some(n) => Slot::Native(n),
                        None => Slot::Py(PyObj::of(&r)),
                    }
                }
            })
            .collect();
        RecordBatch::new(slots)
    }

    /// Set record `i`'s key to what the Python converter gave.
    fn set_key(&mut self, py: Python<'_>, i: usize, schema: Bound<'_, PyAny>, value: Bound<'_, PyAny>) -> PyResult<()> {
        let s = if schema.is_none() { None } else { Some(NSchema::of(&schema)?) };
        let v = unsafe { value_of_ptr(py, value.as_ptr(), s.as_ref()) };
        let r = self.native_mut(i)?;
        r.key_schema = s;
        r.key = v;
        Ok(())
    }

    /// Set record `i`'s value to what the Python converter gave.
    fn set_value(&mut self, py: Python<'_>, i: usize, schema: Bound<'_, PyAny>, value: Bound<'_, PyAny>) -> PyResult<()> {
        let s = if schema.is_none() { None } else { Some(NSchema::of(&schema)?) };
        let v = unsafe { value_of_ptr(py, value.as_ptr(), s.as_ref()) };
        let r = self.native_mut(i)?;
        r.value_schema = s;
        r.value = v;
        Ok(())
    }

    /// Set record `i`'s headers (a `Headers`) to what the Python header converter gave.
    fn set_headers(&mut self, py: Python<'_>, i: usize, headers: Bound<'_, PyAny>) -> PyResult<()> {
        let h = unsafe { headers_of_py(py, headers.as_ptr()) }
            .ok_or_else(|| PyTypeError::new_err("a Headers object is expected"))?;
        self.native_mut(i)?.headers = Some(h);
        Ok(())
    }

    /// Drop record `i` (a tolerated failure, a filtered record).
    fn drop(&mut self, i: usize) -> PyResult<()> {
        self.check(i)?;
        self.slots[i] = Slot::Dropped;
        self.changed();
        Ok(())
    }

    /// Record `i` as a Python record (None when dropped); from now on the batch holds it.
    fn take(&mut self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        self.check(i)?;
        Ok(self.materialize(py, i)?.bind(py).clone().unbind())
    }

    /// Replace record `i` by a Python record (None: drop it).
    fn put(&mut self, i: usize, record: Bound<'_, PyAny>) -> PyResult<()> {
        self.check(i)?;
        self.slots[i] = if record.is_none() {
            Slot::Dropped
        } else {
            Slot::Py(PyObj::of(&record))
        };
        self.changed();
        Ok(())
    }

    /// Indexes (in the whole batch) of the records that are not dropped, in order.
    fn live_indexes(&mut self) -> Vec<usize> {
        self.live().to_vec()
    }

    /// How many records are Python records (made for Python code, or by it).
    fn python_count(&self) -> usize {
        self.slots.iter().filter(|s| matches!(s, Slot::Py(_))).count()
    }

    /// Every slot's record, dropped ones included (None), as Python records.
    fn all_records(&mut self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let out = PyList::empty(py);
        for i in 0..self.slots.len() {
            out.append(self.materialize(py, i)?.bind(py))?;
        }
        Ok(out.unbind())
    }

    /// The text FileStreamSink writes for the batch, as UTF-8 `bytes`: each live record's
    /// value as Java's `String.valueOf` prints it, one per line (`\n` after each).
    /// `fallback(record) -> str` renders a record the native code does not (a Python record, a
    /// Python object inside). Bytes, not `str`: the sink writes them as they are, where a
    /// `str` cost a UTF-8 decode here and an encode in the file's text layer (together ~40%
    /// of rendering a record with non-ASCII text).
    fn render_values(&mut self, py: Python<'_>, fallback: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let mut buf: Vec<u8> = Vec::with_capacity(self.slots.len() * 64);
        for i in 0..self.slots.len() {
            let done = match &self.slots[i] {
                Slot::Dropped => continue,
                Slot::Native(r) => {
                    let start = buf.len();
                    if crate::render::push_value(&mut buf, &r.value).is_ok() {
                        true
                    } else {
                        buf.truncate(start);
                        false
                    }
                }
                Slot::Py(_) => false,
            };
            if !done {
                let rec = self.materialize(py, i)?;
                let text = fallback.call1((rec.bind(py),))?;
                buf.extend_from_slice(text.extract::<&str>()?.as_bytes());
            }
            buf.push(b'\n');
        }
        Ok(PyBytes::new(py, &buf).into_any().unbind())
    }

    /// Run one chain stage (`step`) over the batch: every native record goes through it
    /// (a Python record is first taken back into the native model when it can be); returns
    /// the indexes of the records the stage's Python twin must do -- those the native step
    /// handed back untouched, and Python records that could not be taken back.
    fn apply_step(&mut self, py: Python<'_>, step: Bound<'_, Step>) -> PyResult<Vec<usize>> {
        let mut step = step.borrow_mut();
        let mut redo = Vec::new();
        let mut topics = Topics::default();
        let mut dropped = false;
        for i in 0..self.slots.len() {
            if let Slot::Py(o) = &self.slots[i] {
                match unsafe { record_of_py(py, o.as_ptr(), &mut topics) } {
                    Some(r) => self.slots[i] = Slot::Native(r),
                    None => {
                        redo.push(i);
                        continue;
                    }
                }
            }
            if let Slot::Native(r) = &mut self.slots[i] {
                match step.run(py, r) {
                    Ok(Outcome::Keep) => {}
                    Ok(Outcome::Drop) => {
                        self.slots[i] = Slot::Dropped;
                        dropped = true;
                    }
                    Err(_) => redo.push(i),
                }
            }
        }
        if dropped {
            self.changed();
        }
        Ok(redo)
    }

    /// What the producer sends for each record: per slot None (dropped) or `(topic,
    /// partition, key, value, timestamp, headers)` with key and value bytes (or None) and
    /// headers a list of `(name, bytes or None)` (or None); and the indexes of the records
    /// the native forms could not encode (their entry is None: the Python converters do
    /// them). `header_converter` None: records with headers are all left to Python.
    #[pyo3(signature = (key_converter, value_converter, header_converter=None))]
    fn encode(
        &mut self,
        py: Python<'_>,
        key_converter: Bound<'_, Converter>,
        value_converter: Bound<'_, Converter>,
        header_converter: Option<Bound<'_, Converter>>,
    ) -> PyResult<(Py<PyList>, Vec<usize>)> {
        let mut kc = key_converter.borrow_mut();
        let mut vc = if key_converter.is(&value_converter) {
            None
        } else {
            Some(value_converter.borrow_mut())
        };
        let mut hc = match &header_converter {
            Some(h) if !h.is(&key_converter) && !h.is(&value_converter) => Some(h.borrow_mut()),
            Some(_) => return Err(PyValueError::new_err("the header converter must be its own instance")),
            None => None,
        };
        let out = PyList::empty(py);
        let mut redo = Vec::new();
        let mut buf: Vec<u8> = Vec::new();
        let none = PyObj::none();
        for i in 0..self.slots.len() {
            let r = match &self.slots[i] {
                Slot::Dropped => {
                    out.append(none.bind(py))?;
                    continue;
                }
                Slot::Py(_) => {
                    redo.push(i);
                    out.append(none.bind(py))?;
                    continue;
                }
                Slot::Native(r) => r,
            };
            // `topic`: the record's for its key and value, None for a header (a header value's
            // subject is not the record's: the Avro form hands it back)
            let mut bytes = |c: &mut Converter,
                             topic: Option<&crate::model::record::TopicName>,
                             schema: Option<&crate::model::schema::SchemaRef>,
                             v|
             -> Result<PyObj, ()> {
                if let Some(o) = c.passthrough(schema, v) {
                    return Ok(o);
                }
                buf.clear();
                match c.encode(py, topic, schema, v, &mut buf) {
                    Ok(true) => Ok(PyObj::of(pyo3::types::PyBytes::new(py, &buf).as_any())),
                    Ok(false) => Ok(PyObj::none()),
                    Err(_) => Err(()),
                }
            };
            let key = bytes(&mut kc, Some(&r.topic), r.key_schema.as_ref(), &r.key);
            let value = {
                let conv = match vc.as_mut() {
                    Some(v) => &mut **v,
                    None => &mut *kc,
                };
                bytes(conv, Some(&r.topic), r.value_schema.as_ref(), &r.value)
            };
            let headers: Result<PyObj, ()> = match &r.headers {
                Some(h) if !h.is_empty() => match hc.as_mut() {
                    None => Err(()),
                    Some(c) => {
                        let list = PyList::empty(py);
                        let mut ok = true;
                        for hd in h {
                            match bytes(c, None, hd.schema.as_ref(), &hd.value) {
                                Ok(b) => {
                                    let name = unsafe { crate::pyconv::to_py::new_str(py, &hd.key)? };
                                    list.append((name.bind(py), b.bind(py)))?;
                                }
                                Err(()) => {
                                    ok = false;
                                    break;
                                }
                            }
                        }
                        if ok {
                            Ok(PyObj::of(list.as_any()))
                        } else {
                            Err(())
                        }
                    }
                },
                _ => Ok(PyObj::none()),
            };
            match (key, value, headers) {
                (Ok(k), Ok(v), Ok(h)) => {
                    let partition = match r.partition {
                        Some(p) => p.into_pyobject(py)?.into_any(),
                        None => none.bind(py).clone(),
                    };
                    let ts = match r.timestamp {
                        Some(t) => t.into_pyobject(py)?.into_any(),
                        None => none.bind(py).clone(),
                    };
                    out.append((r.topic.py.bind(py), partition, k.bind(py), v.bind(py), ts, h.bind(py)))?;
                }
                _ => {
                    redo.push(i);
                    out.append(none.bind(py))?;
                }
            }
        }
        Ok((out.unbind(), redo))
    }

    // -- the JDBC sink: runs and rows over the live records (positions in the sequence) ------

    /// The end of the run of records from `start` that have the topic of record `start`
    /// (what the JDBC writer's loop finds); `start` itself when it is out of range.
    fn topic_run_end(&mut self, py: Python<'_>, start: usize) -> PyResult<usize> {
        let n = self.live().len();
        if start >= n {
            return Ok(start);
        }
        let topic = self.topic_at(py, start)?;
        let mut j = start + 1;
        while j < n && self.topic_at(py, j)? == topic {
            j += 1;
        }
        Ok(j)
    }

    /// The first position in `start..end` whose record does not have exactly these schema
    /// objects or has a null value, or `end` (the JDBC sink's runs of one row plan).
    fn schema_run_end(
        &mut self,
        py: Python<'_>,
        start: usize,
        end: usize,
        key_schema: Bound<'_, PyAny>,
        value_schema: Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let end = end.min(self.live().len());
        let (ks, vs) = (key_schema.as_ptr(), value_schema.as_ptr());
        let none = unsafe { pyo3::ffi::Py_None() };
        let mut j = start;
        while j < end {
            let i = self.live()[j];
            let fits = match &self.slots[i] {
                Slot::Native(r) => {
                    r.key_schema.as_ref().map_or(none, |s| s.py.as_ptr()) == ks
                        && r.value_schema.as_ref().map_or(none, |s| s.py.as_ptr()) == vs
                        && !r.value.is_null()
                }
                Slot::Py(_) => {
                    let rec = self.materialize(py, i)?;
                    let r = rec.bind(py);
                    r.getattr("key_schema")?.as_ptr() == ks
                        && r.getattr("value_schema")?.as_ptr() == vs
                        && !r.getattr("value")?.is_none()
                }
                Slot::Dropped => false,
            };
            if !fits {
                break;
            }
            j += 1;
        }
        Ok(j)
    }

    /// The JDBC sink's row tuples of the records at positions `start..end` (see
    /// `crate::jdbc_rows`), or None when one is a Python record or does not fit.
    fn rows(
        &mut self,
        py: Python<'_>,
        start: usize,
        end: usize,
        sources: Vec<(u8, Option<String>)>,
        schemaless: bool,
    ) -> PyResult<Option<Py<PyList>>> {
        let Some(sources) = parse_sources(sources) else { return Ok(None) };
        let out = PyList::empty(py);
        let end = end.min(self.live().len());
        let mut ats = vec![crate::jdbc_rows::At::default(); sources.len()];
        for j in start..end {
            let i = self.live()[j];
            let Slot::Native(r) = &self.slots[i] else { return Ok(None) };
            match crate::jdbc_rows::row_to_py(py, r, &sources, schemaless, &mut ats)? {
                Some(row) => out.append(row)?,
                None => return Ok(None),
            }
        }
        Ok(Some(out.unbind()))
    }

    /// The binary COPY stream (signature, rows, trailer) of the records at positions
    /// `start..end` for columns of types `oids`, or None when one does not fit (a Python
    /// record, a value this column does not take natively).
    fn copy_binary(
        &mut self,
        py: Python<'_>,
        start: usize,
        end: usize,
        sources: Vec<(u8, Option<String>)>,
        schemaless: bool,
        oids: Vec<u32>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let Some(sources) = parse_sources(sources) else { return Ok(None) };
        let cols: Option<Vec<_>> = oids.iter().map(|&o| crate::jdbc_rows::col_of(o)).collect();
        let Some(cols) = cols else { return Ok(None) };
        if cols.len() != sources.len() || cols.len() > i16::MAX as usize {
            return Ok(None);
        }
        let end = end.min(self.live().len());
        let mut buf = Vec::with_capacity(32 + (end.saturating_sub(start)) * (2 + cols.len() * 16));
        crate::jdbc_rows::copy_start(&mut buf);
        let mut ats = vec![crate::jdbc_rows::At::default(); sources.len()];
        for j in start..end {
            let i = self.live()[j];
            let Slot::Native(r) = &self.slots[i] else { return Ok(None) };
            if !crate::jdbc_rows::copy_row(&mut buf, r, &sources, &cols, schemaless, &mut ats) {
                return Ok(None);
            }
        }
        crate::jdbc_rows::copy_end(&mut buf);
        Ok(Some(pyo3::types::PyBytes::new(py, &buf).into_any().unbind()))
    }

    /// A copy of the batch: the same records, their values deep-copied (schemas, strings and
    /// Python objects shared), so that running a chain over one leaves the other as it was.
    fn copy(&self) -> RecordBatch {
        RecordBatch {
            slots: self.slots.clone(),
            live: self.live.clone(),
        }
    }

    /// The size of the batch, dropped records included.
    #[getter]
    fn size(&self) -> usize {
        self.slots.len()
    }

    fn __len__(&mut self) -> usize {
        self.live().len()
    }

    fn __getitem__(&mut self, py: Python<'_>, index: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let n = self.live().len();
        if let Ok(slice) = index.cast::<PySlice>() {
            let ind = slice.indices(n as isize)?;
            let out = PyList::empty(py);
            let mut j = ind.start;
            for _ in 0..ind.slicelength {
                let i = self.live()[j as usize];
                out.append(self.materialize(py, i)?.bind(py))?;
                j += ind.step;
            }
            return Ok(out.into_any().unbind());
        }
        let mut k: isize = index.extract()?;
        if k < 0 {
            k += n as isize;
        }
        if k < 0 || k as usize >= n {
            return Err(PyIndexError::new_err("list index out of range"));
        }
        let i = self.live()[k as usize];
        Ok(self.materialize(py, i)?.bind(py).clone().unbind())
    }

    fn __iter__(slf: PyRefMut<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let obj: Py<RecordBatch> = slf.into();
        Ok(Py::new(py, BatchIter { batch: obj, next: 0 })?.into_any())
    }

    fn __repr__(&mut self) -> String {
        format!("RecordBatch({} records)", self.live().len())
    }
}

#[pyclass(module = "kconnect_native")]
pub struct BatchIter {
    batch: Py<RecordBatch>,
    next: usize,
}

#[pymethods]
impl BatchIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut b = self.batch.bind(py).borrow_mut();
        let live = b.live();
        if self.next >= live.len() {
            return Ok(None);
        }
        let i = live[self.next];
        self.next += 1;
        Ok(Some(b.materialize(py, i)?.bind(py).clone().unbind()))
    }
}

/// A consumed message's headers (a list of `(name, bytes or None)`) converted natively, or
/// None when one is not plain or the converter hands one back. The converter is given no
/// topic: a header value's subject is not the record's (the Avro form hands it back).
unsafe fn decode_headers(
    py: Python<'_>,
    conv: &mut Converter,
    list: *mut ffi::PyObject,
) -> Option<Vec<crate::model::record::NHeader>> {
    if ffi::PyList_CheckExact(list) == 0 {
        return None;
    }
    let n = ffi::PyList_GET_SIZE(list);
    let mut out = Vec::with_capacity(n as usize);
    for j in 0..n {
        let t = ffi::PyList_GET_ITEM(list, j);
        if ffi::PyTuple_CheckExact(t) == 0 || ffi::PyTuple_GET_SIZE(t) != 2 {
            return None;
        }
        let key = crate::pyconv::from_py::str_of(ffi::PyTuple_GET_ITEM(t, 0))?;
        let (schema, value) = conv.decode(py, None, bytes_of(ffi::PyTuple_GET_ITEM(t, 1))?).ok()?;
        out.push(crate::model::record::NHeader { key, schema, value });
    }
    Some(out)
}

/// The bytes of a key or value (`Some(None)`: a null); None when it is not plain bytes.
#[inline]
unsafe fn bytes_of<'a>(p: *mut ffi::PyObject) -> Option<Option<&'a [u8]>> {
    if p == ffi::Py_None() {
        return Some(None);
    }
    if ffi::PyBytes_CheckExact(p) == 0 {
        return None;
    }
    Some(Some(std::slice::from_raw_parts(
        ffi::PyBytes_AS_STRING(p) as *const u8,
        ffi::Py_SIZE(p) as usize,
    )))
}
