//! Java's `Double.toString` / `Float.toString` as JDK 17 prints them (`FloatingDecimal`), a
//! digit-for-digit port of `kconnect.api.data.java_numbers` (which is checked against a JVM):
//! the fast shortest-digits path where both algorithms provably agree, the exact integral
//! path, then FloatingDecimal's own digit loop in Java's wrapping int/long arithmetic, or with
//! big integers where Java uses them.

use num_bigint::BigUint;
use std::cmp::Ordering;

const EXP_SHIFT: u32 = 52;
const FRACT_HOB: u64 = 1 << EXP_SHIFT;
const SIGNIF_MASK: u64 = FRACT_HOB - 1;
const EXP_ONE: u64 = 1023 << EXP_SHIFT;

/// ceil(log2(5^i)) as FloatingDecimal approximates it, for i < 27.
const N_5_BITS: [i64; 27] = [
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54,
    56, 59, 61,
];

/// Decimal digits of 2^p that cannot be significant (index p, 0..63).
const INSIGNIFICANT_FOR_POW2: [u32; 64] = [
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9,
    9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16,
    16, 16, 17, 17, 17, 18, 18, 18, 19,
];

// FloatingDecimal's own constants, digit for digit (not std's LOG10_2)
#[allow(clippy::approx_constant)]
fn estimate_dec_exp(fract_bits: u64, bin_exp: i64) -> i64 {
    let d2 = f64::from_bits(EXP_ONE | (fract_bits & SIGNIF_MASK));
    let d = (d2 - 1.5) * 0.289529654 + 0.176091259 + (bin_exp as f64) * 0.301029995663981;
    d.floor() as i64
}

fn pow5(n: i64) -> u64 {
    5u64.pow(n as u32)
}

fn n5_bits(i: i64) -> i64 {
    if i < 27 {
        N_5_BITS[i as usize]
    } else {
        i * 3
    }
}

/// The easy case: an integral value held exactly in a long.
fn long_digits(mut lvalue: u64, insignificant: u32) -> (Vec<u8>, i64) {
    let mut dec_exp = 0i64;
    if insignificant > 0 {
        let pow10 = 10u64.pow(insignificant);
        let residue = lvalue % pow10;
        lvalue /= pow10;
        dec_exp += insignificant as i64;
        if residue >= pow10 >> 1 {
            lvalue += 1;
        }
    }
    let s = lvalue.to_string();
    let stripped = s.trim_end_matches('0');
    (
        stripped.bytes().map(|c| c - b'0').collect(),
        dec_exp + s.len() as i64,
    )
}

fn roundup(digits: &mut [u8], dec_exponent: i64) -> i64 {
    let mut i = digits.len() - 1;
    let mut q = digits[i];
    if q == 9 {
        while q == 9 && i > 0 {
            digits[i] = 0;
            i -= 1;
            q = digits[i];
        }
        if q == 9 {
            digits[0] = 1;
            return dec_exponent + 1;
        }
    }
    digits[i] = q + 1;
    dec_exponent
}

/// Digits and decimal exponent (value = 0.d1d2... * 10^exp) as FloatingDecimal makes them.
fn dtoa(bin_exp: i64, mut fract_bits: u64, n_sig_bits: i64) -> (Vec<u8>, i64) {
    let tail_zeros = fract_bits.trailing_zeros() as i64;
    let n_fract_bits = EXP_SHIFT as i64 + 1 - tail_zeros;
    let n_tiny_bits = (n_fract_bits - bin_exp - 1).max(0);
    if (-21..=62).contains(&bin_exp) && n_tiny_bits == 0 {
        let mut insignificant = 0;
        if bin_exp > n_sig_bits {
            let p2 = bin_exp - n_sig_bits - 1;
            if 1 < p2 && p2 < 64 {
                insignificant = INSIGNIFICANT_FOR_POW2[p2 as usize];
            }
        }
        let lvalue = if bin_exp >= EXP_SHIFT as i64 {
            fract_bits << (bin_exp - EXP_SHIFT as i64)
        } else {
            fract_bits >> (EXP_SHIFT as i64 - bin_exp)
        };
        return long_digits(lvalue, insignificant);
    }
    let mut dec_exp = estimate_dec_exp(fract_bits, bin_exp);
    let b5 = (-dec_exp).max(0);
    let mut b2 = b5 + n_tiny_bits + bin_exp;
    let s5 = dec_exp.max(0);
    let mut s2 = s5 + n_tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - n_sig_bits;
    fract_bits >>= tail_zeros;
    b2 -= n_fract_bits - 1;
    let common2 = b2.min(s2);
    b2 -= common2;
    s2 -= common2;
    m2 -= common2;
    if n_fract_bits == 1 {
        m2 -= 1; // an exact power of two: the lower neighbour is only half as far away
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }
    let b_bits = n_fract_bits + b2 + n5_bits(b5);
    let ten_s_bits = s2 + 1 + n5_bits(s5 + 1);
    let mut digits: Vec<u8> = Vec::with_capacity(20);
    let (low, high, low_digit_difference);
    if b_bits < 64 && ten_s_bits < 64 {
        if b_bits < 32 && ten_s_bits < 32 {
            // Java's int branch
            let mut b: i32 = (fract_bits as i32).wrapping_mul(pow5(b5) as i32).wrapping_shl(b2 as u32);
            let s: i32 = (pow5(s5) as i32).wrapping_shl(s2 as u32);
            let mut m: i32 = (pow5(m5) as i32).wrapping_shl(m2 as u32);
            let tens = s.wrapping_mul(10);
            let q = b / s;
            b = 10i32.wrapping_mul(b % s);
            m = m.wrapping_mul(10);
            let mut lo = b < m;
            let mut hi = b.wrapping_add(m) > tens;
            if q == 0 && !hi {
                dec_exp -= 1;
            } else {
                digits.push(q as u8);
            }
            if !(-3..8).contains(&dec_exp) {
                hi = false;
                lo = false;
            }
            while !lo && !hi {
                let q = b / s;
                b = 10i32.wrapping_mul(b % s);
                m = m.wrapping_mul(10);
                if m > 0 {
                    lo = b < m;
                    hi = b.wrapping_add(m) > tens;
                } else {
                    lo = true;
                    hi = true;
                }
                digits.push(q as u8);
            }
            low = lo;
            high = hi;
            low_digit_difference = b.wrapping_shl(1).wrapping_sub(tens) as i64;
        } else {
            // Java's long branch
            let mut b: i64 = (fract_bits as i64).wrapping_mul(pow5(b5) as i64).wrapping_shl(b2 as u32);
            let s: i64 = (pow5(s5) as i64).wrapping_shl(s2 as u32);
            let mut m: i64 = (pow5(m5) as i64).wrapping_shl(m2 as u32);
            let tens = s.wrapping_mul(10);
            let q = b / s;
            b = 10i64.wrapping_mul(b % s);
            m = m.wrapping_mul(10);
            let mut lo = b < m;
            let mut hi = b.wrapping_add(m) > tens;
            if q == 0 && !hi {
                dec_exp -= 1;
            } else {
                digits.push(q as u8);
            }
            if !(-3..8).contains(&dec_exp) {
                hi = false;
                lo = false;
            }
            while !lo && !hi {
                let q = b / s;
                b = 10i64.wrapping_mul(b % s);
                m = m.wrapping_mul(10);
                if m > 0 {
                    lo = b < m;
                    hi = b.wrapping_add(m) > tens;
                } else {
                    lo = true;
                    hi = true;
                }
                digits.push(q as u8);
            }
            low = lo;
            high = hi;
            low_digit_difference = b.wrapping_shl(1).wrapping_sub(tens);
        }
    } else {
        let five = BigUint::from(5u32);
        let big_s = five.pow(s5 as u32) << (s2 as usize);
        let mut big_b = (BigUint::from(fract_bits) * five.pow(b5 as u32)) << (b2 as usize);
        let mut big_m = five.pow((m5 + 1) as u32) << ((m2 + 1) as usize);
        let ten_s = &big_s * 10u32;
        let divmod = |b: &BigUint| -> (u8, BigUint) {
            let mut q = 0u8;
            let mut r = b.clone();
            while r >= big_s {
                r -= &big_s;
                q += 1;
            }
            (q, r)
        };
        let (q, r) = divmod(&big_b);
        big_b = r * 10u32;
        let mut lo = big_b < big_m;
        let mut hi = &big_b + &big_m >= ten_s;
        if q == 0 && !hi {
            dec_exp -= 1;
        } else {
            digits.push(q);
        }
        if !(-3..8).contains(&dec_exp) {
            hi = false;
            lo = false;
        }
        while !lo && !hi {
            let (q, r) = divmod(&big_b);
            big_b = r * 10u32;
            big_m *= 10u32;
            lo = big_b < big_m;
            hi = &big_b + &big_m >= ten_s;
            digits.push(q);
        }
        low = lo;
        high = hi;
        low_digit_difference = if hi && lo {
            match (&big_b << 1usize).cmp(&ten_s) {
                Ordering::Greater => 1,
                Ordering::Less => -1,
                Ordering::Equal => 0,
            }
        } else {
            0
        };
    }
    let mut dec_exponent = dec_exp + 1;
    if high {
        if low {
            if low_digit_difference == 0 {
                if digits[digits.len() - 1] & 1 != 0 {
                    dec_exponent = roundup(&mut digits, dec_exponent);
                }
            } else if low_digit_difference > 0 {
                dec_exponent = roundup(&mut digits, dec_exponent);
            }
        } else {
            dec_exponent = roundup(&mut digits, dec_exponent);
        }
    }
    (digits, dec_exponent)
}

/// Lay out digits `0.d1d2... * 10^dec_exponent` as `FloatingDecimal.getChars` does.
fn push_chars(buf: &mut Vec<u8>, negative: bool, text: &[u8], dec_exponent: i64) {
    let n = text.len() as i64;
    if negative {
        buf.push(b'-');
    }
    if 0 < dec_exponent && dec_exponent < 8 {
        if n <= dec_exponent {
            buf.extend_from_slice(text);
            for _ in 0..(dec_exponent - n) {
                buf.push(b'0');
            }
            buf.extend_from_slice(b".0");
        } else {
            buf.extend_from_slice(&text[..dec_exponent as usize]);
            buf.push(b'.');
            buf.extend_from_slice(&text[dec_exponent as usize..]);
        }
    } else if -3 < dec_exponent && dec_exponent <= 0 {
        buf.extend_from_slice(b"0.");
        for _ in 0..(-dec_exponent) {
            buf.push(b'0');
        }
        buf.extend_from_slice(text);
    } else {
        buf.push(text[0]);
        buf.push(b'.');
        if n > 1 {
            buf.extend_from_slice(&text[1..]);
        } else {
            buf.push(b'0');
        }
        buf.push(b'E');
        buf.extend_from_slice((dec_exponent - 1).to_string().as_bytes());
    }
}

fn push_from_bits(buf: &mut Vec<u8>, negative: bool, bin_exp: i64, fract: u64, n_sig: i64) {
    let (digits, dec_exponent) = dtoa(bin_exp, fract, n_sig);
    let text: Vec<u8> = digits.iter().map(|d| b'0' + d).collect();
    push_chars(buf, negative, &text, dec_exponent);
}

const MIN_NORMAL: f64 = 2.2250738585072014e-308;
const TWO_53: f64 = 9007199254740992.0;

/// Java's text from the shortest round-trip digits where both provably pick the same digits
/// (see `_fast` in the Python reference); false outside that domain.
fn push_fast(buf: &mut Vec<u8>, d: f64) -> bool {
    let a = d.abs();
    if !(MIN_NORMAL..TWO_53).contains(&a) || a.fract() == 0.0 {
        return false;
    }
    if a.to_bits() & SIGNIF_MASK == 0 {
        return false;
    }
    // shortest digits: "d.ddde<exp>"; where 17 are needed, the correctly rounded 17 (two
    // 17-digit candidates can be equally near; the shortest-digits search may take either)
    // The length is the shortest-digits search's; the digits are then the correctly rounded
    // ones of that length (half to even), which is what Python's repr gives: where two
    // candidates are equally near, the search may take either.
    let shortest = format!("{a:e}");
    let len = shortest.split_once('e').unwrap().0.bytes().filter(u8::is_ascii_digit).count();
    let s = format!("{a:.*e}", len.saturating_sub(1));
    let (mantissa, exp) = s.split_once('e').unwrap();
    let exp: i64 = exp.parse().unwrap();
    let mut digits: Vec<u8> = mantissa.bytes().filter(|c| *c != b'.').collect();
    while digits.len() > 1 && *digits.last().unwrap() == b'0' {
        digits.pop();
    }
    let dec_exponent = exp + 1;
    if digits.len() < 2 && !(-3..8).contains(&(dec_exponent - 1)) {
        return false;
    }
    push_chars(buf, d < 0.0, &digits, dec_exponent);
    true
}

/// Append `Double.toString(d)`.
pub fn push_double(buf: &mut Vec<u8>, d: f64) {
    if d.is_nan() {
        buf.extend_from_slice(b"NaN");
        return;
    }
    if d.is_infinite() {
        buf.extend_from_slice(if d > 0.0 { b"Infinity" } else { b"-Infinity" });
        return;
    }
    if d == 0.0 {
        buf.extend_from_slice(if d.is_sign_negative() { b"-0.0" } else { b"0.0" });
        return;
    }
    if push_fast(buf, d) {
        return;
    }
    let bits = d.to_bits();
    let negative = bits >> 63 != 0;
    let mut fract = bits & SIGNIF_MASK;
    let mut bin_exp = ((bits >> 52) & 0x7ff) as i64;
    let n_sig;
    if bin_exp == 0 {
        let len = 64 - fract.leading_zeros() as i64;
        let shift = EXP_SHIFT as i64 + 1 - len;
        fract <<= shift;
        bin_exp = 1 - shift;
        n_sig = len;
    } else {
        fract |= FRACT_HOB;
        n_sig = EXP_SHIFT as i64 + 1;
    }
    push_from_bits(buf, negative, bin_exp - 1023, fract, n_sig);
}

/// Append `Float.toString(f)`.
pub fn push_float(buf: &mut Vec<u8>, f: f32) {
    if f.is_nan() {
        buf.extend_from_slice(b"NaN");
        return;
    }
    if f.is_infinite() {
        buf.extend_from_slice(if f > 0.0 { b"Infinity" } else { b"-Infinity" });
        return;
    }
    if f == 0.0 {
        buf.extend_from_slice(if f.is_sign_negative() { b"-0.0" } else { b"0.0" });
        return;
    }
    let bits = f.to_bits();
    let negative = bits >> 31 != 0;
    let mut fract = (bits & 0x7f_ffff) as u64;
    let mut bin_exp = ((bits >> 23) & 0xff) as i64;
    let n_sig;
    if bin_exp == 0 {
        let len = 64 - fract.leading_zeros() as i64;
        let shift = 24 - len;
        n_sig = len;
        fract <<= shift;
        bin_exp = 1 - shift;
    } else {
        fract |= 1 << 23;
        n_sig = 24;
    }
    push_from_bits(buf, negative, bin_exp - 127, fract << (EXP_SHIFT - 23), n_sig);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(v: f64) -> String {
        let mut b = Vec::new();
        push_double(&mut b, v);
        String::from_utf8(b).unwrap()
    }

    fn f(v: f32) -> String {
        let mut b = Vec::new();
        push_float(&mut b, v);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn doubles() {
        assert_eq!(d(1.0), "1.0");
        assert_eq!(d(1e10), "1.0E10");
        assert_eq!(d(0.001), "0.001");
        assert_eq!(d(1e-4), "1.0E-4");
        assert_eq!(d(123.45), "123.45");
        assert_eq!(d(-0.0), "-0.0");
        assert_eq!(d(f64::NAN), "NaN");
        assert_eq!(d(4.9e-324), "4.9E-324");
        assert_eq!(d(1.152921504606847e18), "1.15292150460684698E18");
        assert_eq!(d(0.5), "0.5");
        assert_eq!(d(100.0), "100.0");
        assert_eq!(d(1234567.0), "1234567.0");
        assert_eq!(d(12345678.0), "1.2345678E7");
        assert_eq!(d(f64::MAX), "1.7976931348623157E308");
        assert_eq!(d(2e-3), "0.002");
    }

    #[test]
    fn floats() {
        assert_eq!(f(12.2), "12.2");
        assert_eq!(f(1.0), "1.0");
        assert_eq!(f(0.1), "0.1");
        assert_eq!(f(1e10), "1.0E10");
        assert_eq!(f(f32::MIN_POSITIVE), "1.17549435E-38");
        assert_eq!(f(1.4e-45), "1.4E-45");
    }
}
