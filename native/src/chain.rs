//! A run of built-in SMTs over a batch of records, fused: each record goes through every step
//! in Rust, intermediate records and structs are never built, and only the final record (and
//! any struct it holds) becomes a Python object.
//!
//! Each step reproduces its transformation's `apply` exactly for the cases it handles; the
//! per-schema work (derived schemas, field lookups, defaults) is asked of the Python
//! transformation itself, once per schema. Whenever a record falls outside those cases, or a
//! Python helper raises, `apply` returns None and the runtime runs the batch through the
//! Python stages instead, so every result, error and message is the Python path's. The
//! transformations are pure, so running a batch again after an abandoned native pass is not
//! observable.

use crate::types::{self, Types};
use crate::util::{
    alloc, init_slot, init_slot_steal, prefetch, slot, Owned,
};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use smallvec::{smallvec, SmallVec};
use std::ptr;
use std::sync::Mutex;

struct Fallback;
type R<T> = Result<T, Fallback>;

fn err() -> Fallback {
    unsafe { crate::util::clear_error() };
    Fallback
}

/// A value as it goes through the steps. Most values are never touched by the chain, only
/// handed on, so they stay borrowed: no reference count is taken until the output record
/// is built.
enum V {
    /// Borrowed, alive for the whole record: reachable from the input record (which the
    /// caller's list holds, and which nothing mutates during the call), or held by a step's
    /// per-schema plan (a step's cache changes only when that step runs on the next record).
    In(*mut ffi::PyObject),
    /// Made or taken by a step (a new dict, a value read from a struct the chain owns).
    Obj(Owned),
    /// A struct that exists only inside the chain until the record is built. Boxed: keeps V
    /// (and the per-record Work) small to move around.
    Pending(Box<Pending>),
}

/// A struct that exists only inside the chain until the record is built; its schema and
/// field names are held by the step's plan.
struct Pending {
    schema: *mut ffi::PyObject,
    names: SmallVec<[*mut ffi::PyObject; 4]>,
    values: SmallVec<[V; 4]>,
    /// where each value goes in the struct's values (its field's index in `schema`)
    at: SmallVec<[usize; 4]>,
    /// how many fields `schema` has (the length of the struct's values)
    len: usize,
}

impl V {
    /// The object itself (a pending struct is built first); never a Pending.
    unsafe fn materialize(self, t: &Types) -> R<V> {
        match self {
            V::Pending(p) => {
                let p = *p;
                let list = Owned::new(ffi::PyList_New(p.len as isize)).ok_or_else(err)?;
                let none = ffi::Py_None();
                for i in 0..p.len {
                    ffi::Py_INCREF(none);
                    ffi::PyList_SET_ITEM(list.0, i as isize, none);
                }
                for (&at, v) in p.at.iter().zip(p.values) {
                    if at >= p.len {
                        return Err(Fallback);
                    }
                    let v = v.materialize(t)?;
                    // SetItem steals a reference and drops the None it replaces
                    let x = v.ptr_unchecked();
                    ffi::Py_INCREF(x);
                    if ffi::PyList_SetItem(list.0, at as isize, x) != 0 {
                        return Err(err());
                    }
                }
                let s = alloc(t.struct_tp).ok_or_else(err)?;
                init_slot(s.0, t.struct_schema, p.schema);
                init_slot_steal(s.0, t.struct_values, list.into_ptr());
                Ok(V::Obj(s))
            }
            other => Ok(other),
        }
    }

    /// Store this value (a new reference to it) in the empty slot at `offset` of `obj`;
    /// materialized first (a Pending is a bug: it would leave the slot empty).
    #[inline]
    unsafe fn into_slot(self, obj: *mut ffi::PyObject, offset: isize) {
        match self {
            V::In(p) => init_slot(obj, offset, p),
            V::Obj(o) => init_slot_steal(obj, offset, o.into_ptr()),
            V::Pending(_) => {
                // unreachable: a record's slots may be uninitialised, so never leave one empty
                debug_assert!(false, "a pending struct was not materialized");
                init_slot(obj, offset, ffi::Py_None());
            }
        }
    }

    /// The object of an In or Obj (never called on a Pending).
    #[inline]
    fn ptr_unchecked(&self) -> *mut ffi::PyObject {
        match self {
            V::In(p) => *p,
            V::Obj(o) => o.0,
            V::Pending(_) => std::ptr::null_mut(),
        }
    }

    /// A value read from this one: borrowed when this one is borrowed (it then stays alive
    /// for the record), otherwise a new reference (this one may be replaced and freed).
    #[inline]
    unsafe fn derived(&self, x: *mut ffi::PyObject) -> V {
        match self {
            V::In(_) => V::In(x),
            _ => V::Obj(Owned::borrowed(x)),
        }
    }

    /// Field `name` of a Struct (or pending struct), without defaults; None when unset.
    /// `index` is the field's index in the Struct's schema (a pending struct is searched by
    /// name).
    unsafe fn struct_get(&self, t: &Types, name: *mut ffi::PyObject, index: usize) -> R<V> {
        match self {
            V::Pending(p) => {
                for (&k, v) in p.names.iter().zip(p.values.iter()) {
                    if k == name || ffi::PyUnicode_Compare(k, name) == 0 {
                        return match v {
                            V::In(x) => Ok(V::In(*x)),
                            V::Obj(o) => Ok(V::Obj(Owned::borrowed(o.0))),
                            V::Pending(_) => Err(Fallback),
                        };
                    }
                }
                Ok(V::In(ffi::Py_None()))
            }
            _ => {
                let x = list_item(slot(self.ptr_unchecked(), t.struct_values), index)?;
                Ok(self.derived(x))
            }
        }
    }

    unsafe fn is_struct(&self, t: &Types) -> bool {
        match self {
            V::Pending(_) => true,
            _ => ffi::Py_TYPE(self.ptr_unchecked()) == t.struct_tp,
        }
    }

    /// The schema of a Struct (or pending struct): borrowed, alive for the record (held by
    /// the struct, and by the plan cache of the step that reads it).
    unsafe fn struct_schema(&self, t: &Types) -> *mut ffi::PyObject {
        match self {
            V::Pending(p) => p.schema,
            _ => slot(self.ptr_unchecked(), t.struct_schema),
        }
    }

    fn ptr(&self) -> Option<*mut ffi::PyObject> {
        match self {
            V::Pending(_) => None,
            _ => Some(self.ptr_unchecked()),
        }
    }

    unsafe fn is_none(&self) -> bool {
        self.ptr() == Some(ffi::Py_None())
    }
}

/// The record as it goes through the steps. The schemas are borrowed: each comes from the
/// input record or from a step's plan.
struct Work {
    key_schema: *mut ffi::PyObject,
    key: V,
    value_schema: *mut ffi::PyObject,
    value: V,
    changed: bool,
}

impl Work {
    fn side(&mut self, is_key: bool) -> (&mut *mut ffi::PyObject, &mut V) {
        if is_key {
            (&mut self.key_schema, &mut self.key)
        } else {
            (&mut self.value_schema, &mut self.value)
        }
    }
}

/// A per-schema plan, asked of a Python helper and parsed once per schema object (the schema
/// is kept alive, so its id cannot be reused while cached).
struct Cached<T> {
    last: Option<(Owned, T)>,
}

impl<T> Cached<T> {
    fn new() -> Self {
        Cached { last: None }
    }

    #[inline]
    unsafe fn get(
        &mut self,
        f: &Py<PyAny>,
        schema: *mut ffi::PyObject,
        parse: impl FnOnce(*mut ffi::PyObject, *mut ffi::PyObject) -> R<T>,
    ) -> R<&T> {
        let hit = matches!(&self.last, Some((s, _)) if s.0 == schema);
        if !hit {
            let v = Owned::new(ffi::PyObject_CallOneArg(f.as_ptr(), schema)).ok_or_else(err)?;
            let plan = parse(v.0, schema)?;
            self.last = Some((Owned::borrowed(schema), plan));
        }
        Ok(&self.last.as_ref().unwrap().1)
    }
}

/// A field name as a strong, interned reference (so dict lookups and name comparisons
/// mostly compare pointers).
unsafe fn interned(p: *mut ffi::PyObject) -> R<Owned> {
    if ffi::PyUnicode_CheckExact(p) == 0 {
        return Err(Fallback);
    }
    let mut o = Owned::borrowed(p).into_ptr();
    ffi::PyUnicode_InternInPlace(&mut o);
    Ok(Owned(o))
}

/// Item `index` of a Struct's values (a list with one entry per field; borrowed), or
/// Fallback when they are anything else.
#[inline(always)]
unsafe fn list_item(values: *mut ffi::PyObject, index: usize) -> R<*mut ffi::PyObject> {
    if values.is_null() || ffi::PyList_CheckExact(values) == 0 {
        return Err(Fallback);
    }
    let l = values as *mut ffi::PyListObject;
    if index >= (*l).ob_base.ob_size as usize {
        return Err(Fallback);
    }
    Ok(*(*l).ob_item.add(index))
}

/// The index of field `name` in STRUCT `schema`, asked of the Python schema (once per plan).
unsafe fn field_index(schema: *mut ffi::PyObject, name: *mut ffi::PyObject) -> R<usize> {
    crate::util::field_index(schema, name).ok_or(Fallback)
}

/// How many fields STRUCT `schema` has (once per plan).
unsafe fn field_count(schema: *mut ffi::PyObject) -> R<usize> {
    let f = Owned::new(ffi::PyObject_GetAttrString(schema, c"fields".as_ptr())).ok_or_else(err)?;
    let n = ffi::PyObject_Length(f.0);
    if n < 0 {
        return Err(err());
    }
    Ok(n as usize)
}

struct KeyField {
    name: Owned,
    default: Owned,
    required: bool,
    /// the field's index in the value schema
    index: usize,
}

struct KeyPlan {
    key_schema: Owned,
    fields: Vec<KeyField>,
}

struct FieldPlan {
    name: Owned,
    schema: Owned,
    default: Owned,
    /// the field's index in the schema the plan was made for
    index: usize,
}

struct InsertPlan {
    updated: Owned,
    /// (name, default, index in the input schema)
    fields: Vec<(Owned, Owned, usize)>,
    /// every field of the updated schema: (interned name, index)
    all: Vec<(Owned, usize)>,
}

impl InsertPlan {
    /// The index of field `name` in the updated schema.
    unsafe fn at(&self, name: *mut ffi::PyObject) -> R<usize> {
        for (n, i) in self.all.iter() {
            if n.0 == name || ffi::PyUnicode_Compare(n.0, name) == 0 {
                return Ok(*i);
            }
        }
        Err(Fallback)
    }
}

enum Check {
    Int(i64, i64),
    Str,
    Bool,
    Bytes,
    Any,
}

struct HoistPlan {
    updated: Owned,
    /// how many fields the updated schema has
    len: usize,
    check: Check,
    optional: bool,
    validate: Owned,
}

enum Step {
    /// ValueToKey: `plan(schema) -> (key_schema, ((name, default|None, required), ...))`
    ValueToKey {
        names: Vec<Owned>,
        plan: Py<PyAny>,
        cache: Cached<KeyPlan>,
    },
    /// ExtractField (top-level field): `field(schema) -> (name, field schema, default|None)`
    Extract {
        is_key: bool,
        name: Owned,
        field: Py<PyAny>,
        rnwd: bool,
        cache: Cached<FieldPlan>,
    },
    /// InsertField: `schema(s) -> (updated schema, ((name, default|None), ...))`
    Insert {
        is_key: bool,
        topic: Option<Owned>,
        partition: Option<Owned>,
        offset: Option<Owned>,
        timestamp: Option<Owned>,
        static_field: Option<Owned>,
        static_value: Owned,
        to_datetime: Py<PyAny>,
        schema: Py<PyAny>,
        cache: Cached<InsertPlan>,
    },
    /// HoistField: `schema(s) -> (updated schema, (kind, optional[, lo, hi]), validate(value))`
    Hoist {
        is_key: bool,
        name: Owned,
        schema: Py<PyAny>,
        cache: Cached<HoistPlan>,
    },
    /// ValueToKey of one field followed by ExtractField$Key of that field (Kafka's idiom for
    /// "the key is this field of the value"): the two steps without the key struct between
    /// them. Any other case runs the two steps one after the other.
    KeyFromField(Box<Step>, Box<Step>),
}

fn opt_name(o: &Bound<'_, PyAny>) -> PyResult<Option<Owned>> {
    if o.is_none() {
        Ok(None)
    } else {
        let s: String = o.extract()?;
        Ok(Some(Owned::borrowed(PyString::intern(o.py(), &s).as_ptr())))
    }
}

fn name(o: &Bound<'_, PyAny>) -> PyResult<Owned> {
    opt_name(o)?.ok_or_else(|| PyValueError::new_err("a field name is required"))
}

fn parse_step(spec: &Bound<'_, PyAny>) -> PyResult<Step> {
    let t = spec.cast::<PyTuple>()?;
    let kind: String = t.get_item(0)?.extract()?;
    Ok(match kind.as_str() {
        "value_to_key" => {
            let mut names = Vec::new();
            for n in t.get_item(1)?.try_iter()? {
                names.push(name(&n?)?);
            }
            Step::ValueToKey {
                names,
                plan: t.get_item(2)?.unbind(),
                cache: Cached::new(),
            }
        }
        "extract" => Step::Extract {
            is_key: t.get_item(1)?.extract()?,
            name: name(&t.get_item(2)?)?,
            field: t.get_item(3)?.unbind(),
            rnwd: t.get_item(4)?.extract()?,
            cache: Cached::new(),
        },
        "insert" => Step::Insert {
            is_key: t.get_item(1)?.extract()?,
            topic: opt_name(&t.get_item(2)?)?,
            partition: opt_name(&t.get_item(3)?)?,
            offset: opt_name(&t.get_item(4)?)?,
            timestamp: opt_name(&t.get_item(5)?)?,
            static_field: opt_name(&t.get_item(6)?)?,
            static_value: Owned::borrowed(t.get_item(7)?.as_ptr()),
            to_datetime: t.get_item(8)?.unbind(),
            schema: t.get_item(9)?.unbind(),
            cache: Cached::new(),
        },
        "hoist" => Step::Hoist {
            is_key: t.get_item(1)?.extract()?,
            name: name(&t.get_item(2)?)?,
            schema: t.get_item(3)?.unbind(),
            cache: Cached::new(),
        },
        other => return Err(PyValueError::new_err(format!("unknown chain step {other}"))),
    })
}

unsafe fn tuple_item(t: *mut ffi::PyObject, i: isize) -> R<*mut ffi::PyObject> {
    if ffi::PyTuple_Check(t) == 0 || ffi::PyTuple_GET_SIZE(t) <= i {
        return Err(Fallback);
    }
    Ok(ffi::PyTuple_GET_ITEM(t, i))
}

unsafe fn tuple_items(t: *mut ffi::PyObject) -> R<&'static [*mut ffi::PyObject]> {
    if ffi::PyTuple_Check(t) == 0 {
        return Err(Fallback);
    }
    let n = ffi::PyTuple_GET_SIZE(t) as usize;
    let p = (*(t as *mut ffi::PyTupleObject)).ob_item.as_ptr();
    Ok(std::slice::from_raw_parts(p, n))
}

/// ValueToKey's plan for value schema `schema`; the key struct's values are built in the
/// plan's field order, so the key schema must list the fields in that order.
unsafe fn parse_key_plan(p: *mut ffi::PyObject, schema: *mut ffi::PyObject) -> R<KeyPlan> {
    let key_schema = Owned::borrowed(tuple_item(p, 0)?);
    let mut fields = Vec::new();
    for (i, &f) in tuple_items(tuple_item(p, 1)?)?.iter().enumerate() {
        let name = interned(tuple_item(f, 0)?)?;
        if field_index(key_schema.0, name.0)? != i {
            return Err(Fallback);
        }
        fields.push(KeyField {
            index: field_index(schema, name.0)?,
            name,
            default: Owned::borrowed(tuple_item(f, 1)?),
            required: tuple_item(f, 2)? == ffi::Py_True(),
        });
    }
    if field_count(key_schema.0)? != fields.len() {
        return Err(Fallback);
    }
    Ok(KeyPlan { key_schema, fields })
}

unsafe fn parse_field_plan(p: *mut ffi::PyObject, schema: *mut ffi::PyObject) -> R<FieldPlan> {
    let name = interned(tuple_item(p, 0)?)?;
    Ok(FieldPlan {
        index: field_index(schema, name.0)?,
        name,
        schema: Owned::borrowed(tuple_item(p, 1)?),
        default: Owned::borrowed(tuple_item(p, 2)?),
    })
}

unsafe fn parse_insert_plan(p: *mut ffi::PyObject, schema: *mut ffi::PyObject) -> R<InsertPlan> {
    let updated = Owned::borrowed(tuple_item(p, 0)?);
    let mut fields = Vec::new();
    for &f in tuple_items(tuple_item(p, 1)?)? {
        let name = interned(tuple_item(f, 0)?)?;
        fields.push((
            Owned::borrowed(name.0),
            Owned::borrowed(tuple_item(f, 1)?),
            field_index(schema, name.0)?,
        ));
    }
    let names = Owned::new(ffi::PyObject_GetAttrString(updated.0, c"fields".as_ptr()))
        .ok_or_else(err)?;
    let names = Owned::new(ffi::PySequence_Tuple(names.0)).ok_or_else(err)?;
    let mut all = Vec::new();
    for (i, &f) in tuple_items(names.0)?.iter().enumerate() {
        let n = Owned::new(ffi::PyObject_GetAttrString(f, c"name".as_ptr())).ok_or_else(err)?;
        all.push((interned(n.0)?, i));
    }
    Ok(InsertPlan {
        updated,
        fields,
        all,
    })
}

unsafe fn parse_hoist_plan(p: *mut ffi::PyObject, _schema: *mut ffi::PyObject) -> R<HoistPlan> {
    let updated = Owned::borrowed(tuple_item(p, 0)?);
    let len = field_count(updated.0)?;
    let check = tuple_items(tuple_item(p, 1)?)?;
    if check.len() < 2 {
        return Err(Fallback);
    }
    let optional = check[1] == ffi::Py_True();
    let mut size = 0isize;
    let k = ffi::PyUnicode_AsUTF8AndSize(check[0], &mut size);
    if k.is_null() {
        return Err(err());
    }
    let kind = match std::slice::from_raw_parts(k as *const u8, size as usize) {
        b"str" => Check::Str,
        b"bool" => Check::Bool,
        b"bytes" => Check::Bytes,
        b"int" if check.len() == 4 => {
            let lo = ffi::PyLong_AsLongLong(check[2]);
            let hi = ffi::PyLong_AsLongLong(check[3]);
            if !ffi::PyErr_Occurred().is_null() {
                return Err(err());
            }
            Check::Int(lo, hi)
        }
        _ => Check::Any,
    };
    Ok(HoistPlan {
        updated,
        len,
        check: kind,
        optional,
        validate: Owned::borrowed(tuple_item(p, 2)?),
    })
}

/// The default-substituted value: `v`, or `default` (held by a plan) when `v` is None and
/// `default` is set.
#[inline]
unsafe fn with_default(v: V, default: *mut ffi::PyObject) -> V {
    if v.is_none() && default != ffi::Py_None() {
        V::In(default)
    } else {
        v
    }
}

/// Steps with the ValueToKey + ExtractField$Key pairs fused.
fn fuse(steps: Vec<Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    for s in steps {
        let pair = matches!(
            (out.last(), &s),
            (Some(Step::ValueToKey { names, .. }), Step::Extract { is_key: true, name, .. })
                if names.len() == 1 && unsafe { ffi::PyUnicode_Compare(names[0].0, name.0) } == 0
        );
        if pair {
            let first = out.pop().unwrap();
            out.push(Step::KeyFromField(Box::new(first), Box::new(s)));
        } else {
            out.push(s);
        }
    }
    out
}

impl Step {
    /// KeyFromField's fast case; Ok(false) when it does not apply (nothing was changed).
    #[inline]
    unsafe fn key_from_field(&mut self, t: &Types, w: &mut Work) -> R<bool> {
        let Step::KeyFromField(a, b) = self else {
            return Ok(false);
        };
        let (
            Step::ValueToKey { plan, cache, .. },
            Step::Extract {
                field,
                rnwd,
                cache: ecache,
                ..
            },
        ) = (a.as_mut(), b.as_mut())
        else {
            return Ok(false);
        };
        let none = ffi::Py_None();
        if w.value_schema == none || !w.value.is_struct(t) {
            return Ok(false);
        }
        let schema = w.value.struct_schema(t);
        if schema.is_null() {
            return Err(Fallback);
        }
        let p = cache.get(plan, schema, |x, s| parse_key_plan(x, s))?;
        if p.fields.len() != 1 {
            return Ok(false);
        }
        let kf = &p.fields[0];
        let mut x = with_default(w.value.struct_get(t, kf.name.0, kf.index)?, kf.default.0);
        if kf.required && x.is_none() {
            return Err(Fallback);
        }
        let fp = ecache.get(field, p.key_schema.0, |x, s| parse_field_plan(x, s))?;
        if fp.name.0 != kf.name.0 && ffi::PyUnicode_Compare(fp.name.0, kf.name.0) != 0 {
            return Ok(false);
        }
        if *rnwd {
            x = with_default(x, fp.default.0);
        }
        w.key_schema = fp.schema.0;
        w.key = x;
        w.value_schema = schema;
        w.changed = true;
        Ok(true)
    }

    /// The fused pair's whole work for one record in its common case: a record whose value
    /// is a Struct of the schema the plans were last made for, with no headers to copy. It
    /// does what `key_from_field` and the record building do, straight from the record and
    /// the cached plans; None when the record is anything else (the general path takes it,
    /// and leaves the plans ready for the records after it).
    #[inline(always)]
    unsafe fn key_record(
        &self,
        t: &Types,
        chain: &Chain,
        rec: *mut ffi::PyObject,
    ) -> Option<R<Owned>> {
        let Step::KeyFromField(a, b) = self else {
            return None;
        };
        let (
            Step::ValueToKey { cache, .. },
            Step::Extract {
                rnwd,
                cache: ecache,
                ..
            },
        ) = (a.as_ref(), b.as_ref())
        else {
            return None;
        };
        let (vschema, kp) = cache.last.as_ref()?;
        let (kschema, fp) = ecache.last.as_ref()?;
        if kp.fields.len() != 1 || kschema.0 != kp.key_schema.0 {
            return None;
        }
        let kf = &kp.fields[0];
        if fp.name.0 != kf.name.0 {
            return None;
        }
        let tp = ffi::Py_TYPE(rec);
        if tp != t.source_tp && tp != t.sink_tp {
            return None;
        }
        let none = ffi::Py_None();
        let value = slot(rec, t.value);
        let value_schema = slot(rec, t.value_schema);
        let headers = slot(rec, t.headers);
        if value.is_null()
            || value_schema.is_null()
            || value_schema == none
            || headers != none
            || ffi::Py_TYPE(value) != t.struct_tp
            || slot(value, t.struct_schema) != vschema.0
        {
            return None;
        }
        let mut x = list_item(slot(value, t.struct_values), kf.index).ok()?;
        if x == none {
            x = kf.default.0;
            if x == none && kf.required {
                return None; // the general path falls back: Python's error names the field
            }
            if x == none && *rnwd {
                x = fp.default.0;
            }
        }
        Some(chain.build(
            t,
            rec,
            Output {
                key_schema: fp.schema.0,
                key: V::In(x),
                value_schema: vschema.0,
                value: V::In(value),
                headers: V::In(none),
            },
        ))
    }

    /// For `key_record` a few records ahead: prefetch the key object `rec`'s value struct
    /// holds, whose reference count the output record will take.
    #[inline(always)]
    unsafe fn key_lookahead(&self, t: &Types, rec: *mut ffi::PyObject) {
        let Step::KeyFromField(a, _) = self else {
            return;
        };
        let Step::ValueToKey { cache, .. } = a.as_ref() else {
            return;
        };
        let Some((_, kp)) = cache.last.as_ref() else {
            return;
        };
        let (Some(kf), v) = (kp.fields.first(), slot(rec, t.value)) else {
            return;
        };
        if !v.is_null() && ffi::Py_TYPE(v) == t.struct_tp {
            if let Ok(x) = list_item(slot(v, t.struct_values), kf.index) {
                prefetch(x);
            }
        }
    }

    unsafe fn apply(&mut self, t: &Types, rec: *mut ffi::PyObject, w: &mut Work) -> R<()> {
        let none = ffi::Py_None();
        match self {
            Step::KeyFromField(..) => {
                if !self.key_from_field(t, w)? {
                    let Step::KeyFromField(a, b) = self else {
                        unreachable!()
                    };
                    a.apply(t, rec, w)?;
                    b.apply(t, rec, w)?;
                }
            }
            Step::ValueToKey { names, plan, cache } => {
                if w.value_schema == none {
                    // schemaless: the key is a dict of the listed fields of the value map
                    let m = w.value.ptr().ok_or(Fallback)?;
                    if ffi::PyDict_CheckExact(m) == 0 {
                        return Err(Fallback);
                    }
                    let key = Owned::new(ffi::PyDict_New()).ok_or_else(err)?;
                    for n in names.iter() {
                        let x = ffi::PyDict_GetItemWithError(m, n.0);
                        let x = if x.is_null() {
                            if !ffi::PyErr_Occurred().is_null() {
                                return Err(err());
                            }
                            none
                        } else {
                            x
                        };
                        if ffi::PyDict_SetItem(key.0, n.0, x) != 0 {
                            return Err(err());
                        }
                    }
                    w.key_schema = none;
                    w.key = V::Obj(key);
                    w.changed = true;
                    return Ok(());
                }
                if !w.value.is_struct(t) {
                    return Err(Fallback);
                }
                let schema = w.value.struct_schema(t);
                if schema.is_null() {
                    return Err(Fallback);
                }
                let p = cache.get(plan, schema, |x, s| parse_key_plan(x, s))?;
                let mut knames = SmallVec::new();
                let mut kvalues = SmallVec::new();
                for f in p.fields.iter() {
                    let v = with_default(w.value.struct_get(t, f.name.0, f.index)?, f.default.0);
                    if f.required && v.is_none() {
                        return Err(Fallback); // Python's Struct.put names the null field
                    }
                    knames.push(f.name.0);
                    kvalues.push(v);
                }
                w.key_schema = p.key_schema.0;
                // parse_key_plan checked the key schema lists the fields in this order
                w.key = V::Pending(Box::new(Pending {
                    schema: p.key_schema.0,
                    at: (0..knames.len()).collect(),
                    len: knames.len(),
                    names: knames,
                    values: kvalues,
                }));
                w.value_schema = schema;
                w.changed = true;
            }
            Step::Extract {
                is_key,
                name,
                field,
                rnwd,
                cache,
            } => {
                let (schema, value) = w.side(*is_key);
                if *schema == none {
                    let extracted = if value.is_none() {
                        V::In(none)
                    } else {
                        let m = value.ptr().ok_or(Fallback)?;
                        if ffi::PyDict_CheckExact(m) == 0 {
                            return Err(Fallback);
                        }
                        let x = ffi::PyDict_GetItemWithError(m, name.0);
                        if x.is_null() {
                            if !ffi::PyErr_Occurred().is_null() {
                                return Err(err());
                            }
                            V::In(none)
                        } else {
                            value.derived(x)
                        }
                    };
                    *value = extracted;
                } else {
                    if !value.is_none() && !value.is_struct(t) {
                        return Err(Fallback);
                    }
                    let f = cache.get(field, *schema, |x, s| parse_field_plan(x, s))?;
                    let extracted = if value.is_none() {
                        V::In(none)
                    } else {
                        let v = value.struct_get(t, f.name.0, f.index)?;
                        if *rnwd {
                            with_default(v, f.default.0)
                        } else {
                            v
                        }
                    };
                    *schema = f.schema.0;
                    *value = extracted;
                }
                w.changed = true;
            }
            Step::Insert {
                is_key,
                topic,
                partition,
                offset,
                timestamp,
                static_field,
                static_value,
                to_datetime,
                schema: schema_fn,
                cache,
            } => {
                let is_key = *is_key;
                let (schema, value) = w.side(is_key);
                if value.is_none() {
                    return Ok(()); // the record itself, unchanged
                }
                let rtopic = slot(rec, t.topic);
                let rpart = slot(rec, t.kafka_partition);
                let rts = slot(rec, t.timestamp);
                if rtopic.is_null() || rpart.is_null() || rts.is_null() {
                    return Err(Fallback);
                }
                let roffset = if offset.is_some() {
                    // offset.field needs a SinkRecord (Python's message says so)
                    if ffi::Py_TYPE(rec) != t.sink_tp {
                        return Err(Fallback);
                    }
                    let o = slot(rec, t.kafka_offset);
                    if o.is_null() {
                        return Err(Fallback);
                    }
                    o
                } else {
                    none
                };
                if *schema == none {
                    let m = value.ptr().ok_or(Fallback)?;
                    if ffi::PyDict_CheckExact(m) == 0 {
                        return Err(Fallback);
                    }
                    let d = Owned::new(ffi::PyDict_Copy(m)).ok_or_else(err)?;
                    let set = |k: &Option<Owned>, v: *mut ffi::PyObject| -> R<()> {
                        if let Some(k) = k {
                            if ffi::PyDict_SetItem(d.0, k.0, v) != 0 {
                                return Err(err());
                            }
                        }
                        Ok(())
                    };
                    set(topic, rtopic)?;
                    if rpart != none {
                        set(partition, rpart)?;
                    }
                    set(offset, roffset)?;
                    if rts != none {
                        set(timestamp, rts)?;
                    }
                    set(static_field, static_value.0)?;
                    *value = V::Obj(d);
                } else {
                    if !value.is_struct(t) {
                        return Err(Fallback);
                    }
                    let sschema = value.struct_schema(t);
                    let p = cache.get(schema_fn, sschema, |x, s| parse_insert_plan(x, s))?;
                    let mut names = SmallVec::with_capacity(p.fields.len() + 4);
                    let mut values = SmallVec::with_capacity(p.fields.len() + 4);
                    let mut at = SmallVec::with_capacity(p.fields.len() + 4);
                    for (fname, default, index) in p.fields.iter() {
                        names.push(fname.0);
                        values.push(with_default(
                            value.struct_get(t, fname.0, *index)?,
                            default.0,
                        ));
                        at.push(p.at(fname.0)?);
                    }
                    let mut put = |k: &Option<Owned>, v: V| -> R<()> {
                        if let Some(k) = k {
                            // a schema cannot hold two fields of one name: InsertField's
                            // derived schema would have refused it (then this step is not run)
                            at.push(p.at(k.0)?);
                            names.push(k.0);
                            values.push(v);
                        }
                        Ok(())
                    };
                    put(topic, V::In(rtopic))?;
                    if rpart != none {
                        put(partition, V::In(rpart))?;
                    }
                    put(offset, V::In(roffset))?;
                    if rts != none && timestamp.is_some() {
                        let dt = Owned::new(ffi::PyObject_CallOneArg(to_datetime.as_ptr(), rts))
                            .ok_or_else(err)?;
                        put(timestamp, V::Obj(dt))?;
                    }
                    put(static_field, V::In(static_value.0))?;
                    let updated = p.updated.0;
                    *schema = updated;
                    *value = V::Pending(Box::new(Pending {
                        schema: updated,
                        names,
                        values,
                        at,
                        len: p.all.len(),
                    }));
                }
                w.changed = true;
            }
            Step::Hoist {
                is_key,
                name,
                schema: schema_fn,
                cache,
            } => {
                let (schema, value) = w.side(*is_key);
                let inner = std::mem::replace(value, V::In(none)).materialize(t)?;
                if *schema == none {
                    let d = Owned::new(ffi::PyDict_New()).ok_or_else(err)?;
                    if ffi::PyDict_SetItem(d.0, name.0, inner.ptr_unchecked()) != 0 {
                        return Err(err());
                    }
                    *value = V::Obj(d);
                } else {
                    let p = cache.get(schema_fn, *schema, |x, s| parse_hoist_plan(x, s))?;
                    if !quick_valid(&p.check, p.optional, inner.ptr_unchecked()) {
                        // Struct.put's validation, by the Python reference; raises for a bad value
                        Owned::new(ffi::PyObject_CallOneArg(
                            p.validate.0,
                            inner.ptr_unchecked(),
                        ))
                        .ok_or_else(err)?;
                    }
                    let updated = p.updated.0;
                    *schema = updated;
                    *value = V::Pending(Box::new(Pending {
                        schema: updated,
                        names: smallvec![name.0],
                        values: smallvec![inner],
                        at: smallvec![0],
                        len: p.len,
                    }));
                }
                w.changed = true;
            }
        }
        Ok(())
    }
}

/// Whether `v` is certainly valid for the primitive schema `check` describes (Struct.put's
/// validation would pass); false means "ask the Python validator".
#[inline]
unsafe fn quick_valid(check: &Check, optional: bool, v: *mut ffi::PyObject) -> bool {
    if v == ffi::Py_None() {
        return optional;
    }
    match check {
        Check::Str => ffi::PyUnicode_CheckExact(v) != 0,
        Check::Bool => ffi::PyBool_Check(v) != 0,
        Check::Bytes => ffi::PyBytes_CheckExact(v) != 0,
        Check::Int(lo, hi) => {
            if ffi::PyLong_CheckExact(v) == 0 {
                return false;
            }
            let mut overflow = 0;
            let n = ffi::PyLong_AsLongLongAndOverflow(v, &mut overflow);
            if n == -1 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return false;
            }
            overflow == 0 && n >= *lo && n <= *hi
        }
        Check::Any => false,
    }
}

/// How many records ahead the batch loop prefetches each stage of a record's data (measured
/// on bench/converters.py's chain: shorter distances left the loop waiting on memory).
const AHEAD_RECORD: usize = 16;
const AHEAD_VALUE: usize = 12;
const AHEAD_DICT: usize = 8;
const AHEAD_KEYS: usize = 5;
const AHEAD_KEY: usize = 2;

/// The fused steps of a transformation chain.
/// The steps, with the Python references they hold. Those are only touched with the GIL held
/// (every method of Chain holds it), so the chain may be built on one thread (the worker's)
/// and run on another (the task's).
struct Steps(Vec<Step>);

unsafe impl Send for Steps {}

#[pyclass(module = "kconnect_native", frozen)]
pub struct Chain {
    steps: Mutex<Steps>,
    copied_headers: Py<PyString>,
    minus_one: Py<PyAny>,
}

#[pymethods]
impl Chain {
    #[new]
    fn new(py: Python<'_>, steps: Bound<'_, PyAny>) -> PyResult<Self> {
        let mut v = Vec::new();
        for s in steps.try_iter()? {
            v.push(parse_step(&s?)?);
        }
        Ok(Chain {
            steps: Mutex::new(Steps(fuse(v))),
            copied_headers: PyString::intern(py, "_copied_headers").unbind(),
            minus_one: (-1i64).into_pyobject(py)?.into_any().unbind(),
        })
    }

    /// The batch through every step: a list aligned with `records`, or None when some record
    /// is outside what the steps handle (then the caller runs the Python stages).
    fn apply<'py>(
        &self,
        py: Python<'py>,
        records: Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        let t =
            types::get().ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
        let list = match records.cast::<PyList>() {
            Ok(l) => l.clone(),
            Err(_) => return Ok(None),
        };
        // a chain is used by one task thread; should two threads ever share one, the second
        // takes the Python stages rather than wait
        let Ok(mut guard) = self.steps.try_lock() else {
            return Ok(None);
        };
        let steps = &mut guard.0;
        let key_only = steps.len() == 1 && matches!(steps[0], Step::KeyFromField(..));
        let n = list.len();
        unsafe {
            let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
            let items = (*(list.as_ptr() as *mut ffi::PyListObject)).ob_item;
            for i in 0..n {
                let rec = *items.add(i);
                // The records are usually cold in the cache: fetch what the next ones touch
                // ahead of time, one pointer hop per stage (record, its value struct, the
                // struct's dict, the dict's keys table, and for the key-only chain the key
                // object itself), each stage a few records after the one it depends on.
                if i + AHEAD_RECORD < n {
                    prefetch(*items.add(i + AHEAD_RECORD));
                }
                if i + AHEAD_VALUE < n {
                    let v = slot(*items.add(i + AHEAD_VALUE), t.value);
                    if !v.is_null() {
                        prefetch(v);
                    }
                }
                if i + AHEAD_DICT < n {
                    let v = slot(*items.add(i + AHEAD_DICT), t.value);
                    if !v.is_null() && ffi::Py_TYPE(v) == t.struct_tp {
                        let d = slot(v, t.struct_values);
                        if !d.is_null() {
                            prefetch(d);
                        }
                    }
                }
                if i + AHEAD_KEYS < n {
                    let v = slot(*items.add(i + AHEAD_KEYS), t.value);
                    if !v.is_null() && ffi::Py_TYPE(v) == t.struct_tp {
                        let d = slot(v, t.struct_values);
                        if !d.is_null() && ffi::PyList_CheckExact(d) != 0 {
                            let items = (*(d as *mut ffi::PyListObject)).ob_item;
                            if !items.is_null() {
                                prefetch(items as *mut ffi::PyObject);
                            }
                        }
                    }
                }
                if key_only && i + AHEAD_KEY < n {
                    steps[0].key_lookahead(t, *items.add(i + AHEAD_KEY));
                }
                let fast = if key_only {
                    steps[0].key_record(t, self, rec)
                } else {
                    None
                };
                match fast.unwrap_or_else(|| self.one(t, steps, rec)) {
                    Ok(r) => ffi::PyList_SET_ITEM(out.0, i as isize, r.into_ptr()),
                    Err(Fallback) => {
                        crate::util::clear_error();
                        return Ok(None);
                    }
                }
            }
            Ok(Some(
                Bound::from_owned_ptr(py, out.into_ptr())
                    .cast_into::<PyList>()
                    .unwrap(),
            ))
        }
    }
}

/// The value in the `__slots__` member at `offset` of `rec`; an unset slot (which Python would
/// raise AttributeError for) leaves the batch to the Python stages.
#[inline(always)]
unsafe fn slot_or_fallback(rec: *mut ffi::PyObject, offset: isize) -> R<*mut ffi::PyObject> {
    let p = slot(rec, offset);
    if p.is_null() {
        Err(Fallback)
    } else {
        Ok(p)
    }
}

impl Chain {
    unsafe fn one(&self, t: &Types, steps: &mut [Step], rec: *mut ffi::PyObject) -> R<Owned> {
        let tp = ffi::Py_TYPE(rec);
        let sink = tp == t.sink_tp;
        if !sink && tp != t.source_tp {
            return Err(Fallback);
        }
        let get = |off: isize| slot_or_fallback(rec, off);
        let mut w = Work {
            key_schema: get(t.key_schema)?,
            key: V::In(get(t.key)?),
            value_schema: get(t.value_schema)?,
            value: V::In(get(t.value)?),
            changed: false,
        };
        for s in steps.iter_mut() {
            s.apply(t, rec, &mut w)?;
        }
        if !w.changed {
            return Ok(Owned::borrowed(rec));
        }
        let headers = get(t.headers)?;
        let headers = if headers == ffi::Py_None() {
            V::In(headers)
        } else {
            V::Obj(
                Owned::new(ffi::PyObject_CallMethodNoArgs(
                    rec,
                    self.copied_headers.as_ptr(),
                ))
                .ok_or_else(err)?,
            )
        };
        self.build(
            t,
            rec,
            Output {
                key_schema: w.key_schema,
                key: w.key,
                value_schema: w.value_schema,
                value: w.value,
                headers,
            },
        )
    }

    /// The output record: `rec`'s class and fields with the chain's key, value, schemas and
    /// headers. Everything it copies is read (and may fail) before the record is made; the
    /// record is then made without zeroing its slots and every slot is written before it is
    /// tracked by the collector (`types::init` checked that these are all of the class's
    /// slots).
    #[inline(always)]
    unsafe fn build(&self, t: &Types, rec: *mut ffi::PyObject, o: Output) -> R<Owned> {
        let tp = ffi::Py_TYPE(rec);
        let sink = tp == t.sink_tp;
        let get = |off: isize| slot_or_fallback(rec, off);
        let mut part = get(t.kafka_partition)?;
        let topic = get(t.topic)?;
        let timestamp = get(t.timestamp)?;
        let (sink_offs, source_offs) = (t.sink_slots(), t.source_slots());
        let own: &[isize] = if sink { &sink_offs } else { &source_offs };
        let mut own_values = [ptr::null_mut(); 5];
        for (v, &off) in own_values.iter_mut().zip(own) {
            *v = get(off)?;
        }
        let key = o.key.materialize(t)?;
        let value = o.value.materialize(t)?;
        if sink && part == ffi::Py_None() {
            part = self.minus_one.as_ptr();
        }
        // nothing below can fail
        let r = Owned::new(ffi::_PyObject_GC_New(tp)).ok_or_else(err)?;
        init_slot(r.0, t.topic, topic);
        init_slot(r.0, t.kafka_partition, part);
        init_slot(r.0, t.key_schema, o.key_schema);
        key.into_slot(r.0, t.key);
        init_slot(r.0, t.value_schema, o.value_schema);
        value.into_slot(r.0, t.value);
        init_slot(r.0, t.timestamp, timestamp);
        o.headers.into_slot(r.0, t.headers);
        for (&v, &off) in own_values.iter().zip(own) {
            init_slot(r.0, off, v);
        }
        ffi::PyObject_GC_Track(r.0 as *mut std::ffi::c_void);
        Ok(r)
    }
}

/// What the chain made of a record: its new key, value, schemas and headers.
struct Output {
    key_schema: *mut ffi::PyObject,
    key: V,
    value_schema: *mut ffi::PyObject,
    value: V,
    headers: V,
}
