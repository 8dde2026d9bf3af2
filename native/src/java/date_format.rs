//! `java.text.SimpleDateFormat` formatting in UTC, as `kconnect.transforms._util.
//! java_date_format.JavaDateFormat.format` does it (TimestampConverter's `format`,
//! TimestampRouter's `timestamp.format`). The pattern is tokenized by the Python code
//! (`_tokenize`: letters with their counts, literal text) and handed over, so both read a
//! pattern the same way.

use crate::pyconv::civil;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

const MONTHS: [&str; 12] = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
];
const DAYS: [&str; 7] = [
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
];

enum Tok {
    Field(char, usize),
    Literal(String),
}

pub struct DateFormat {
    toks: Vec<Tok>,
}

fn pad(out: &mut String, v: i64, count: usize) {
    let s = v.to_string();
    // Python's str.zfill: the sign stays in front of the zeros
    let (sign, digits) = match s.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", s.as_str()),
    };
    out.push_str(sign);
    for _ in (digits.len() + sign.len())..count {
        out.push('0');
    }
    out.push_str(digits);
}

impl DateFormat {
    /// From `_tokenize(pattern)`'s list: `(letter, count)` tuples and literal strings.
    pub fn from_tokens(tokens: &Bound<'_, PyAny>) -> PyResult<DateFormat> {
        let mut toks = Vec::new();
        for t in tokens.try_iter()? {
            let t = t?;
            if let Ok(tup) = t.cast::<PyTuple>() {
                let letter: String = tup.get_item(0)?.extract()?;
                let count: usize = tup.get_item(1)?.extract()?;
                let c = letter.chars().next().unwrap_or('?');
                if !"GyYMLdDEuaHkKhmsSFzZX".contains(c) {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!("letter {c}")));
                }
                toks.push(Tok::Field(c, count));
            } else {
                toks.push(Tok::Literal(t.extract()?));
            }
        }
        Ok(DateFormat { toks })
    }

    /// The text of epoch milliseconds `ms` (None outside years 1-9999, as the Python code
    /// cannot make such a date).
    pub fn format(&self, ms: i64) -> Option<String> {
        let days = ms.div_euclid(86_400_000);
        if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&days) {
            return None;
        }
        let rest = ms.rem_euclid(86_400_000);
        let (year, month, day) = civil::from_days(days);
        let (hour, minute, second, milli) =
            (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
        let weekday = (days + 3).rem_euclid(7); // 1970-01-01 was a Thursday (Monday = 0)
        let yday = days - civil::to_days(year, 1, 1) + 1;
        let mut out = String::with_capacity(32);
        for t in &self.toks {
            let (c, count) = match t {
                Tok::Literal(s) => {
                    out.push_str(s);
                    continue;
                }
                Tok::Field(c, n) => (*c, *n),
            };
            match c {
                'G' => out.push_str("AD"),
                'y' | 'Y' => {
                    if count == 2 {
                        pad(&mut out, year % 100, 2)
                    } else {
                        pad(&mut out, year, count)
                    }
                }
                'M' | 'L' => {
                    let name = MONTHS[(month - 1) as usize];
                    if count >= 4 {
                        out.push_str(name)
                    } else if count == 3 {
                        out.push_str(&name[..3])
                    } else {
                        pad(&mut out, month as i64, count)
                    }
                }
                'E' => {
                    let name = DAYS[weekday as usize];
                    out.push_str(if count >= 4 { name } else { &name[..3] })
                }
                'd' => pad(&mut out, day as i64, count),
                'D' => pad(&mut out, yday, count),
                'u' => pad(&mut out, weekday + 1, count),
                'F' => pad(&mut out, (day as i64 - 1) / 7 + 1, count),
                'H' => pad(&mut out, hour, count),
                'k' => pad(&mut out, if hour == 0 { 24 } else { hour }, count),
                'K' => pad(&mut out, hour % 12, count),
                'h' => pad(&mut out, if hour % 12 == 0 { 12 } else { hour % 12 }, count),
                'm' => pad(&mut out, minute, count),
                's' => pad(&mut out, second, count),
                'S' => pad(&mut out, milli, count),
                'a' => out.push_str(if hour >= 12 { "PM" } else { "AM" }),
                'z' => out.push_str(if count >= 4 { "Coordinated Universal Time" } else { "UTC" }),
                'Z' => out.push_str("+0000"),
                _ => out.push('Z'), // X: ISO 8601 zone, always UTC here
            }
        }
        Some(out)
    }
}
