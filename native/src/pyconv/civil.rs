//! Proleptic Gregorian calendar arithmetic on days since 1970-01-01 (H. Hinnant's algorithms).

/// (year, month 1-12, day 1-31) of `days` since the epoch.
pub fn from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days since the epoch of (year, month 1-12, day).
pub fn to_days(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Python's `datetime` covers years 1 to 9999.
pub const MIN_DAYS: i64 = -719_162; // 0001-01-01
pub const MAX_DAYS: i64 = 2_932_896; // 9999-12-31

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for d in [-719_162i64, -1, 0, 1, 59, 60, 365, 10_957, 2_932_896] {
            let (y, m, dd) = from_days(d);
            assert_eq!(to_days(y, m, dd), d);
        }
        assert_eq!(from_days(0), (1970, 1, 1));
        assert_eq!(from_days(MIN_DAYS), (1, 1, 1));
        assert_eq!(from_days(MAX_DAYS), (9999, 12, 31));
        assert_eq!(from_days(11_016), (2000, 2, 29));
    }
}
