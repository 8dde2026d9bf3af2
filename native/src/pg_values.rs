//! PostgreSQL's text output turned into Debezium's values, a whole row at a time, for the native
//! Debezium PostgreSQL source (`kconnect.connectors.debezium.postgres`).
//!
//! A `PgRowDecoder` is made per captured table (per shape: a pgoutput Relation message, a
//! snapshot's catalog read) from one spec per table column, in table order -- what
//! `TableSchema` plans in Python: the column's text kind (`text_kind` in
//! `text_values/dispatch.py`), the Python parser of its text (the reference), and what a NULL
//! becomes; None for a column that is not captured. It reads
//!
//! * `change(payload)`: a pgoutput Insert, Update or Delete message, whole, into
//!   `(old_kind, old_row, new_row)` (`old_kind` `"K"`, `"O"` or None; a row None when the
//!   message has none), where a row is a list with one value per table column: the column's
//!   value, its NULL value, None for a column not captured, or the `unchanged` marker for an
//!   unchanged TOASTed value that was not sent;
//! * `row(texts)`: a row of texts (a snapshot's COPY row: str or None per column) into the same
//!   list.
//!
//! Each kind has a fast path for the text PostgreSQL writes in the settings the connector uses
//! (ISO dates, UTC, a numeric with exactly its column's scale...). A text outside it goes to the
//! column's Python parser, so values and errors are the reference's own. A message it does not
//! fully understand (truncated, another message type, binary or unknown column data, invalid
//! UTF-8, a column count other than the table's) gives None before anything is parsed, and the
//! Python decoder reads it and raises its own errors. Runs with the GIL held.

use crate::util::Owned;
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// What a column's text is, for its fast path.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    /// the text itself (text, varchar, json, uuid, enums...)
    Text,
    /// int2, int4, int8, oid: a Python int
    Int,
    Float8,
    /// float4: the double read, rounded to float32 (`to_float32(float(text))`)
    Float4,
    Bool,
    /// date: days since 1970-01-01
    Date,
    /// time: µs since midnight, or ms (`millis`)
    Time {
        millis: bool,
    },
    /// timestamp: the local date-time read as UTC, µs or ms since 1970
    Timestamp {
        millis: bool,
    },
    /// timestamptz: the `ZonedTimestamp` string with `width` fraction digits
    TimestampTz {
        width: usize,
    },
    /// numeric with a declared scale, `decimal.handling.mode=precise`: a `decimal.Decimal`
    Decimal {
        scale: usize,
    },
    /// a one-dimensional array of an element kind (not itself an array)
    Array(Box<Kind>),
    /// no fast path: always the Python parser
    Py,
}

impl Kind {
    fn parse(name: &str, param: i64) -> PyResult<Kind> {
        if let Some(element) = name.strip_suffix("[]") {
            let element = Kind::parse(element, param)?;
            if matches!(element, Kind::Array(_) | Kind::Py) {
                return Ok(Kind::Py);
            }
            return Ok(Kind::Array(Box::new(element)));
        }
        let unsigned = |what: &str| -> PyResult<usize> {
            usize::try_from(param)
                .map_err(|_| PyValueError::new_err(format!("{what} {param} is negative")))
        };
        Ok(match name {
            "text" => Kind::Text,
            "int" => Kind::Int,
            "float8" => Kind::Float8,
            "float4" => Kind::Float4,
            "bool" => Kind::Bool,
            "date" => Kind::Date,
            "time_us" => Kind::Time { millis: false },
            "time_ms" => Kind::Time { millis: true },
            "timestamp_us" => Kind::Timestamp { millis: false },
            "timestamp_ms" => Kind::Timestamp { millis: true },
            "timestamptz" => {
                let width = unsigned("timestamptz width")?;
                if !(1..=9).contains(&width) {
                    Kind::Py
                } else {
                    Kind::TimestampTz { width }
                }
            }
            "decimal" => Kind::Decimal {
                scale: unsigned("decimal scale")?,
            },
            "py" => Kind::Py,
            _ => {
                return Err(PyValueError::new_err(format!("unknown text kind {name:?}")));
            }
        })
    }
}

/// A column's spec as Python gives it: `(kind, parameter, parser, null_value)`.
type ColumnSpec = (String, i64, Py<PyAny>, Py<PyAny>);

struct Column {
    kind: Kind,
    /// the reference: the Python parser of a non-null text
    parser: Py<PyAny>,
    /// what a NULL becomes
    null: Py<PyAny>,
}

/// A table's row decoder; see the module.
#[pyclass(module = "kconnect_native", frozen)]
pub struct PgRowDecoder {
    columns: Vec<Option<Column>>,
    unchanged: Py<PyAny>,
    decimal: Py<PyAny>,
}

/// Why a message goes to the Python decoder.
struct Unsure;

/// A column's place in a pgoutput TupleData.
enum Cell<'a> {
    Null,
    Unchanged,
    Text(&'a str),
}

/// A TupleData's cells, checked whole before any value is made.
fn tuple_cells<'a>(
    buf: &'a [u8],
    mut pos: usize,
    ncols: usize,
    cells: &mut Vec<Cell<'a>>,
) -> Result<usize, Unsure> {
    cells.clear();
    let head = buf.get(pos..pos + 2).ok_or(Unsure)?;
    if u16::from_be_bytes([head[0], head[1]]) as usize != ncols {
        return Err(Unsure);
    }
    pos += 2;
    for _ in 0..ncols {
        let kind = *buf.get(pos).ok_or(Unsure)?;
        pos += 1;
        match kind {
            b'n' => cells.push(Cell::Null),
            b'u' => cells.push(Cell::Unchanged),
            b't' => {
                let len = buf.get(pos..pos + 4).ok_or(Unsure)?;
                let n = i32::from_be_bytes([len[0], len[1], len[2], len[3]]);
                let n = usize::try_from(n).map_err(|_| Unsure)?;
                pos += 4;
                let bytes = buf.get(pos..pos + n).ok_or(Unsure)?;
                cells.push(Cell::Text(std::str::from_utf8(bytes).map_err(|_| Unsure)?));
                pos += n;
            }
            _ => return Err(Unsure),
        }
    }
    Ok(pos)
}

#[pymethods]
impl PgRowDecoder {
    /// `columns`: per table column, None (not captured) or `(kind, parameter, parser,
    /// null_value)`; `unchanged`: the marker of an unchanged TOASTed value; `decimal`:
    /// `decimal.Decimal`.
    #[new]
    fn new(
        columns: Vec<Option<ColumnSpec>>,
        unchanged: Py<PyAny>,
        decimal: Py<PyAny>,
    ) -> PyResult<Self> {
        let columns = columns
            .into_iter()
            .map(|spec| {
                spec.map(|(kind, param, parser, null)| {
                    Ok::<_, PyErr>(Column {
                        kind: Kind::parse(&kind, param)?,
                        parser,
                        null,
                    })
                })
                .transpose()
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PgRowDecoder {
            columns,
            unchanged,
            decimal,
        })
    }

    /// The rows of a pgoutput Insert, Update or Delete message (see the module), or None.
    fn change<'py>(
        &self,
        py: Python<'py>,
        payload: &Bound<'py, PyBytes>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let buf = payload.as_bytes();
        let mut old_cells = Vec::new(); // most messages have no old tuple
        let mut new_cells = Vec::with_capacity(self.columns.len());
        let Ok(old_kind) = self.cells(buf, &mut old_cells, &mut new_cells) else {
            return Ok(None);
        };
        let old = match old_kind {
            Some(_) => Some(self.cells_row(py, &old_cells)?),
            None => None,
        };
        let new = match buf[0] {
            b'D' => None,
            _ => Some(self.cells_row(py, &new_cells)?),
        };
        let kind = old_kind.map(|k| if k == b'K' { "K" } else { "O" });
        Ok(Some(PyTuple::new(
            py,
            [
                kind.into_pyobject(py)?.into_any(),
                opt(py, old),
                opt(py, new),
            ],
        )?))
    }

    /// The values of a row of texts (str or None per table column; see the module).
    fn row<'py>(&self, py: Python<'py>, texts: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let seq = texts.cast::<pyo3::types::PySequence>()?;
        let n = seq.len()?;
        if n != self.columns.len() {
            return Err(PyValueError::new_err(format!(
                "a row of {n} columns for a table of {}",
                self.columns.len()
            )));
        }
        unsafe {
            let list =
                Owned::new(ffi::PyList_New(n as ffi::Py_ssize_t)).ok_or_else(|| fetch(py))?;
            for (i, column) in self.columns.iter().enumerate() {
                let item = seq.get_item(i)?;
                let value = match column {
                    None => new_ref(ffi::Py_None()),
                    Some(c) if item.is_none() => new_ref(c.null.as_ptr()),
                    Some(_) if item.as_ptr() == self.unchanged.as_ptr() => {
                        new_ref(self.unchanged.as_ptr())
                    }
                    Some(c) => {
                        let s = item.cast::<pyo3::types::PyString>()?;
                        if c.kind == Kind::Text {
                            new_ref(s.as_ptr())
                        } else {
                            match s.to_str() {
                                Ok(text) => self.value(py, c, text, Some(s.as_ptr()))?,
                                Err(_) => call(py, c.parser.as_ptr(), s.as_ptr())?,
                            }
                        }
                    }
                };
                ffi::PyList_SET_ITEM(list.0, i as ffi::Py_ssize_t, value.into_ptr());
            }
            Ok(Bound::from_owned_ptr(py, list.into_ptr()))
        }
    }
}

fn opt<'py>(py: Python<'py>, row: Option<Bound<'py, PyAny>>) -> Bound<'py, PyAny> {
    row.unwrap_or_else(|| py.None().into_bound(py))
}

fn fetch(py: Python<'_>) -> PyErr {
    PyErr::take(py)
        .unwrap_or_else(|| PyValueError::new_err("a Python call failed without an error"))
}

#[inline]
fn new_ref(p: *mut ffi::PyObject) -> Owned {
    unsafe { ffi::Py_INCREF(p) };
    Owned(p)
}

fn call(py: Python<'_>, f: *mut ffi::PyObject, arg: *mut ffi::PyObject) -> PyResult<Owned> {
    Owned::new(unsafe { ffi::PyObject_CallOneArg(f, arg) }).ok_or_else(|| fetch(py))
}

fn new_str(py: Python<'_>, s: &str) -> PyResult<Owned> {
    let b = s.as_bytes();
    unsafe {
        let p = if b.is_ascii() {
            let o = ffi::PyUnicode_New(b.len() as ffi::Py_ssize_t, 127);
            if !o.is_null() {
                std::ptr::copy_nonoverlapping(
                    b.as_ptr(),
                    ffi::PyUnicode_DATA(o) as *mut u8,
                    b.len(),
                );
            }
            o
        } else {
            ffi::PyUnicode_FromStringAndSize(
                b.as_ptr() as *const std::ffi::c_char,
                b.len() as ffi::Py_ssize_t,
            )
        };
        Owned::new(p).ok_or_else(|| fetch(py))
    }
}

fn new_int(py: Python<'_>, v: i64) -> PyResult<Owned> {
    Owned::new(unsafe { ffi::PyLong_FromLongLong(v) }).ok_or_else(|| fetch(py))
}

fn new_float(py: Python<'_>, v: f64) -> PyResult<Owned> {
    Owned::new(unsafe { ffi::PyFloat_FromDouble(v) }).ok_or_else(|| fetch(py))
}

impl PgRowDecoder {
    /// The cells of a change message's tuples; the old tuple's kind (`K`/`O`), if any.
    fn cells<'a>(
        &self,
        buf: &'a [u8],
        old: &mut Vec<Cell<'a>>,
        new: &mut Vec<Cell<'a>>,
    ) -> Result<Option<u8>, Unsure> {
        let ncols = self.columns.len();
        let tag = *buf.first().ok_or(Unsure)?;
        if buf.len() < 6 {
            return Err(Unsure);
        }
        let mut pos = 5;
        let mut old_kind = None;
        if matches!(tag, b'U' | b'D') && matches!(buf[pos], b'K' | b'O') {
            old_kind = Some(buf[pos]);
            pos = tuple_cells(buf, pos + 1, ncols, old)?;
        }
        match tag {
            b'I' | b'U' => {
                if *buf.get(pos).ok_or(Unsure)? != b'N' {
                    return Err(Unsure);
                }
                pos = tuple_cells(buf, pos + 1, ncols, new)?;
            }
            b'D' if old_kind.is_some() => {}
            _ => return Err(Unsure),
        }
        if pos != buf.len() {
            return Err(Unsure);
        }
        Ok(old_kind)
    }

    fn cells_row<'py>(&self, py: Python<'py>, cells: &[Cell<'_>]) -> PyResult<Bound<'py, PyAny>> {
        unsafe {
            let list = Owned::new(ffi::PyList_New(cells.len() as ffi::Py_ssize_t))
                .ok_or_else(|| fetch(py))?;
            for (i, (cell, column)) in cells.iter().zip(&self.columns).enumerate() {
                let value = match (column, cell) {
                    (None, _) => new_ref(ffi::Py_None()),
                    (Some(c), Cell::Null) => new_ref(c.null.as_ptr()),
                    (Some(_), Cell::Unchanged) => new_ref(self.unchanged.as_ptr()),
                    (Some(c), Cell::Text(text)) => self.value(py, c, text, None)?,
                };
                ffi::PyList_SET_ITEM(list.0, i as ffi::Py_ssize_t, value.into_ptr());
            }
            Ok(Bound::from_owned_ptr(py, list.into_ptr()))
        }
    }

    /// A non-null text's value: the fast path, else the column's parser (`original`: the text
    /// as a Python str when there is one).
    fn value(
        &self,
        py: Python<'_>,
        c: &Column,
        text: &str,
        original: Option<*mut ffi::PyObject>,
    ) -> PyResult<Owned> {
        if let Some(v) = self.fast(py, &c.kind, text)? {
            return Ok(v);
        }
        match original {
            Some(s) => call(py, c.parser.as_ptr(), s),
            None => {
                let s = new_str(py, text)?;
                call(py, c.parser.as_ptr(), s.0)
            }
        }
    }

    /// The fast path of `kind`; None when the text is outside it.
    fn fast(&self, py: Python<'_>, kind: &Kind, text: &str) -> PyResult<Option<Owned>> {
        let b = text.as_bytes();
        Ok(Some(match kind {
            Kind::Text => new_str(py, text)?,
            Kind::Int => match parse_i64(b) {
                Some(v) => new_int(py, v)?,
                None => return Ok(None),
            },
            Kind::Float8 => match parse_f64(text) {
                Some(v) => new_float(py, v)?,
                None => return Ok(None),
            },
            Kind::Float4 => match parse_f64(text) {
                Some(v) => new_float(py, v as f32 as f64)?,
                None => return Ok(None),
            },
            Kind::Bool => match b {
                b"t" => new_ref(unsafe { ffi::Py_True() }),
                b"f" => new_ref(unsafe { ffi::Py_False() }),
                _ => return Ok(None),
            },
            Kind::Date => match (b.len() == 10).then(|| date_days(b)).flatten() {
                Some(days) => new_int(py, days)?,
                None => return Ok(None),
            },
            Kind::Time { millis } => match time_micros(b) {
                Some(us) => new_int(py, if *millis { us / 1000 } else { us })?,
                None => return Ok(None),
            },
            Kind::Timestamp { millis } => match timestamp_micros(b) {
                Some(us) => new_int(py, if *millis { us.div_euclid(1000) } else { us })?,
                None => return Ok(None),
            },
            Kind::TimestampTz { width } => match zoned_utc(b, *width) {
                Some(s) => new_str(py, &s)?,
                None => return Ok(None),
            },
            Kind::Decimal { scale } => {
                if !decimal_at_scale(b, *scale) {
                    return Ok(None);
                }
                let s = new_str(py, text)?;
                call(py, self.decimal.as_ptr(), s.0)?
            }
            Kind::Array(element) => return self.array(py, element, b),
            Kind::Py => return Ok(None),
        }))
    }

    /// A one-dimensional array literal (`{a,"b c",NULL}`) as a list of its elements' values;
    /// None for anything else (decorated bounds, nested arrays, blanks, escapes outside quotes,
    /// an element outside its fast path): the column's parser reads those.
    fn array(&self, py: Python<'_>, element: &Kind, b: &[u8]) -> PyResult<Option<Owned>> {
        if b.len() < 2 || b[0] != b'{' || b[b.len() - 1] != b'}' {
            return Ok(None);
        }
        let mut items: Vec<Owned> = Vec::new();
        let mut i = 1;
        let end = b.len() - 1;
        let mut unquoted = String::new();
        if i < end {
            loop {
                let item = if b[i] == b'"' {
                    unquoted.clear();
                    i += 1;
                    let mut start = i;
                    loop {
                        let Some(&c) = b.get(i) else { return Ok(None) };
                        if c == b'"' {
                            break;
                        }
                        if c == b'\\' {
                            unquoted.push_str(str_of(&b[start..i]));
                            i += 1;
                            start = i;
                        }
                        i += 1;
                    }
                    if i > end {
                        return Ok(None);
                    }
                    unquoted.push_str(str_of(&b[start..i]));
                    i += 1;
                    match self.fast(py, element, &unquoted)? {
                        Some(v) => v,
                        None => return Ok(None),
                    }
                } else {
                    let start = i;
                    while i < end && b[i] != b',' {
                        match b[i] {
                            b'{' | b'}' | b'"' | b'\\' => return Ok(None),
                            c if c.is_ascii_whitespace() => return Ok(None),
                            _ => i += 1,
                        }
                    }
                    let raw = str_of(&b[start..i]);
                    if raw.is_empty() {
                        return Ok(None);
                    }
                    if raw == "NULL" {
                        new_ref(unsafe { ffi::Py_None() })
                    } else {
                        match self.fast(py, element, raw)? {
                            Some(v) => v,
                            None => return Ok(None),
                        }
                    }
                };
                items.push(item);
                if i == end {
                    break;
                }
                if b[i] != b',' {
                    return Ok(None);
                }
                i += 1;
            }
        }
        unsafe {
            let list = Owned::new(ffi::PyList_New(items.len() as ffi::Py_ssize_t))
                .ok_or_else(|| fetch(py))?;
            for (k, item) in items.into_iter().enumerate() {
                ffi::PyList_SET_ITEM(list.0, k as ffi::Py_ssize_t, item.into_ptr());
            }
            Ok(Some(list))
        }
    }
}

/// `&b[..]` of a `str` cut at ASCII boundaries (quotes, commas, backslashes): still UTF-8.
fn str_of(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or_default()
}

/// An optional `-` and 1 to 18 digits (what int(text) reads the same; longer: the parser).
fn parse_i64(b: &[u8]) -> Option<i64> {
    let (negative, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
    }
    Some(if negative { -v } else { v })
}

/// A float8 / float4 text as Python's `float()` reads it: digits, sign, point and exponent,
/// or PostgreSQL's `NaN` / `Infinity` / `-Infinity`.
fn parse_f64(text: &str) -> Option<f64> {
    match text {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let b = text.as_bytes();
    if b.is_empty()
        || !b
            .iter()
            .all(|c| matches!(c, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    text.parse::<f64>().ok()
}

fn digits(b: &[u8]) -> Option<i64> {
    if b.is_empty() {
        return None;
    }
    let mut v = 0i64;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
    }
    Some(v)
}

/// Days from 1970-01-01 of a proleptic Gregorian date (`semantic_types.epoch_day`).
fn epoch_day(year: i64, month: i64, day: i64) -> i64 {
    let y = year - (month <= 2) as i64;
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD` (a four-digit year of our era).
fn date_days(b: &[u8]) -> Option<i64> {
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    Some(epoch_day(
        digits(&b[0..4])?,
        digits(&b[5..7])?,
        digits(&b[8..10])?,
    ))
}

/// `HH:MM:SS` with an optional fraction of 1 to 9 digits, in µs (digits past µs cut).
fn time_micros(b: &[u8]) -> Option<i64> {
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let seconds = digits(&b[0..2])? * 3600 + digits(&b[3..5])? * 60 + digits(&b[6..8])?;
    let fraction = match b.len() {
        8 => 0,
        9 => return None,
        n if n <= 18 && b[8] == b'.' => {
            let f = &b[9..];
            digits(f)? * 10i64.pow(9 - f.len() as u32) / 1000
        }
        _ => return None,
    };
    Some(seconds * 1_000_000 + fraction)
}

/// `YYYY-MM-DD HH:MM:SS[.f]` (our era, four-digit year) as µs since 1970, read as UTC.
fn timestamp_micros(b: &[u8]) -> Option<i64> {
    if b.len() < 19 || b[10] != b' ' {
        return None;
    }
    let days = date_days(&b[..10])?;
    let time = time_micros(&b[11..])?;
    Some(days * 86_400_000_000 + time)
}

/// `timestamptz` written in UTC (`...+00`, four-digit year of our era) rewritten as the
/// `ZonedTimestamp` string with `width` fraction digits -- `parse_timestamptz`'s own fast
/// path, on the same conditions.
fn zoned_utc(b: &[u8], width: usize) -> Option<String> {
    if !b.is_ascii() || b.len() < 22 || !b.ends_with(b"+00") || b[4] != b'-' || b[10] != b' ' {
        return None;
    }
    let fraction: &[u8] = match b[19] {
        b'.' => &b[20..b.len() - 3],
        b'+' => b"",
        _ => return None,
    };
    let mut out = String::with_capacity(21 + width);
    out.push_str(str_of(&b[..10]));
    out.push('T');
    out.push_str(str_of(&b[11..19]));
    out.push('.');
    for k in 0..width {
        out.push(fraction.get(k).map_or('0', |&c| c as char));
    }
    out.push('Z');
    Some(out)
}

/// A plain decimal (`-`, digits, `.`, digits) with exactly `scale` fraction digits: what
/// `Decimal(text)` reads at the column's scale, unchanged by the reference's `setScale`.
fn decimal_at_scale(b: &[u8], scale: usize) -> bool {
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    let (whole, fraction) = match digits.iter().position(|&c| c == b'.') {
        Some(p) => (&digits[..p], Some(&digits[p + 1..])),
        None => (digits, None),
    };
    let all_digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    all_digits(whole)
        && match fraction {
            Some(f) => f.len() == scale && all_digits(f),
            None => scale == 0,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_days_from_1970() {
        assert_eq!(date_days(b"1970-01-01"), Some(0));
        assert_eq!(date_days(b"2024-02-29"), Some(19_782));
        assert_eq!(date_days(b"1950-01-01"), Some(-7_305));
        assert_eq!(date_days(b"24-01-01"), None);
    }

    #[test]
    fn times_and_timestamps_in_micros() {
        assert_eq!(time_micros(b"00:00:01"), Some(1_000_000));
        assert_eq!(time_micros(b"24:00:00"), Some(86_400_000_000));
        assert_eq!(time_micros(b"01:02:03.5"), Some(3_723_500_000));
        assert_eq!(time_micros(b"01:02:03.123456789"), Some(3_723_123_456));
        assert_eq!(time_micros(b"01:02:03."), None);
        assert_eq!(timestamp_micros(b"1969-12-31 23:59:59.999"), Some(-1_000));
        assert_eq!(timestamp_micros(b"2024-01-01T00:00:00"), None);
    }

    #[test]
    fn utc_timestamptz_rewritten() {
        assert_eq!(
            zoned_utc(b"2024-01-01 00:00:01.25+00", 6).as_deref(),
            Some("2024-01-01T00:00:01.250000Z")
        );
        assert_eq!(
            zoned_utc(b"2024-01-01 00:00:01+00", 3).as_deref(),
            Some("2024-01-01T00:00:01.000Z")
        );
        assert_eq!(zoned_utc(b"2024-01-01 00:00:01+02", 6), None);
    }

    #[test]
    fn decimals_only_at_their_scale() {
        assert!(decimal_at_scale(b"-12.345", 3));
        assert!(decimal_at_scale(b"12", 0));
        assert!(!decimal_at_scale(b"12.3", 3));
        assert!(!decimal_at_scale(b"1e5", 0));
        assert!(!decimal_at_scale(b"NaN", 0));
    }

    #[test]
    fn integers_and_floats() {
        assert_eq!(parse_i64(b"-42"), Some(-42));
        assert_eq!(parse_i64(b"9223372036854775807"), None);
        assert_eq!(parse_i64(b"+1"), None);
        assert_eq!(parse_f64("1e+100"), Some(1e100));
        assert_eq!(parse_f64("inf"), None);
    }
}
