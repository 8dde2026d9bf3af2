"""Java's ``Double.toString`` / ``Float.toString`` (JDK 17 and earlier), reproduced digit for digit.

Apache Kafka's JsonConverter writes FLOAT64 and FLOAT32 values through Jackson, which prints
them with ``Double.toString`` / ``Float.toString``. Up to JDK 18 those use
``FloatingDecimal.dtoa`` (JDK-4511638 replaced it with a shortest-digits algorithm in JDK 19),
which differs from Python's shortest ``repr`` in several ways:

* integral values below 2^63 print every significant digit (``1.15292150460684698E18`` for
  2^60, where ``repr`` gives ``1.152921504606847e+18``);
* in E-notation the loop always produces a second digit, which is sometimes not the shortest
  choice (``4.9E-324`` for the smallest subnormal, where ``repr`` gives ``5e-324``);
* the stopping test is symmetric and takes the smaller gap at powers of two;
* integer arithmetic in the fast branches wraps around exactly as Java's int/long do.

This module is an independent Python rendering of that algorithm's observable behaviour
(verified against a real JVM by ``tests/integration/test_json_converter_java.py``).
:func:`java_double_to_string` tries a cheap exact shortcut first (see ``_fast``) and falls back
to the full digit generation for everything else.

Called on the converter's hot path from any task thread; pure functions, no shared state.
"""

from __future__ import annotations

import math
import struct

__all__ = ["java_double_to_string", "java_float_to_string", "to_float32"]

_EXP_SHIFT = 52
_FRACT_HOB = 1 << _EXP_SHIFT
_SIGNIF_MASK = _FRACT_HOB - 1
_EXP_ONE = 1023 << _EXP_SHIFT

# ceil(log2(5**i)) as FloatingDecimal approximates it, for i < 27.
_N_5_BITS = (
    0,
    3,
    5,
    7,
    10,
    12,
    14,
    17,
    19,
    21,
    24,
    26,
    28,
    31,
    33,
    35,
    38,
    40,
    42,
    45,
    47,
    49,
    52,
    54,
    56,
    59,
    61,
)
# Number of decimal digits of 2**p that cannot be significant (index p, 0..63).
_INSIGNIFICANT_FOR_POW2 = (
    0,
    0,
    0,
    0,
    1,
    1,
    1,
    2,
    2,
    2,
    3,
    3,
    3,
    3,
    4,
    4,
    4,
    5,
    5,
    5,
    6,
    6,
    6,
    6,
    7,
    7,
    7,
    8,
    8,
    8,
    9,
    9,
    9,
    9,
    10,
    10,
    10,
    11,
    11,
    11,
    12,
    12,
    12,
    12,
    13,
    13,
    13,
    14,
    14,
    14,
    15,
    15,
    15,
    15,
    16,
    16,
    16,
    17,
    17,
    17,
    18,
    18,
    18,
    19,
)

_pack_d = struct.Struct(">d").pack
_unpack_q = struct.Struct(">Q").unpack
_pack_q = struct.Struct(">Q").pack
_unpack_d = struct.Struct(">d").unpack
_pack_f = struct.Struct(">f").pack
_unpack_f = struct.Struct(">f").unpack
_unpack_i = struct.Struct(">I").unpack


def _wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - 0x100000000 if v & 0x80000000 else v


def _wrap64(v: int) -> int:
    v &= 0xFFFFFFFFFFFFFFFF
    return v - 0x10000000000000000 if v & 0x8000000000000000 else v


def _jdiv(a: int, b: int) -> int:
    """Java integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _jmod(a: int, b: int) -> int:
    """Java remainder (takes the dividend's sign)."""
    return a - _jdiv(a, b) * b


def _estimate_dec_exp(fract_bits: int, bin_exp: int) -> int:
    d2 = float(_unpack_d(_pack_q(_EXP_ONE | (fract_bits & _SIGNIF_MASK)))[0])
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + float(bin_exp) * 0.301029995663981
    return math.floor(d)


def _long_digits(lvalue: int, insignificant: int) -> tuple[list[int], int]:
    """The easy case: an integral value held exactly in a long."""
    dec_exp = 0
    if insignificant:
        pow10 = 10**insignificant
        residue = lvalue % pow10
        lvalue //= pow10
        dec_exp += insignificant
        if residue >= pow10 >> 1:
            lvalue += 1
    s = str(lvalue)
    stripped = s.rstrip("0")
    return [ord(c) - 48 for c in stripped], dec_exp + len(s)


def _dtoa(bin_exp: int, fract_bits: int, n_sig_bits: int) -> tuple[list[int], int]:
    """Digits and decimal exponent (value = 0.d1d2... * 10**exp) as FloatingDecimal makes them."""
    tail_zeros = (fract_bits & -fract_bits).bit_length() - 1
    n_fract_bits = _EXP_SHIFT + 1 - tail_zeros
    n_tiny_bits = max(0, n_fract_bits - bin_exp - 1)
    if -21 <= bin_exp <= 62 and n_tiny_bits == 0:
        insignificant = 0
        if bin_exp > n_sig_bits:
            p2 = bin_exp - n_sig_bits - 1
            if 1 < p2 < len(_INSIGNIFICANT_FOR_POW2):
                insignificant = _INSIGNIFICANT_FOR_POW2[p2]
        if bin_exp >= _EXP_SHIFT:
            lvalue = fract_bits << (bin_exp - _EXP_SHIFT)
        else:
            lvalue = fract_bits >> (_EXP_SHIFT - bin_exp)
        return _long_digits(lvalue, insignificant)

    dec_exp = _estimate_dec_exp(fract_bits, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny_bits + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny_bits
    m5 = b5
    m2 = b2 - n_sig_bits
    fract_bits >>= tail_zeros
    b2 -= n_fract_bits - 1
    common2 = min(b2, s2)
    b2 -= common2
    s2 -= common2
    m2 -= common2
    if n_fract_bits == 1:
        m2 -= 1  # exact power of two: the lower neighbour is only half as far away
    if m2 < 0:
        b2 -= m2
        s2 -= m2
        m2 = 0

    b_bits = n_fract_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    digits: list[int] = []
    e_form = False

    if b_bits < 64 and ten_s_bits < 64:
        # Java's int or long branch: same algorithm in fixed-width arithmetic (wrapping).
        wrap = _wrap32 if (b_bits < 32 and ten_s_bits < 32) else _wrap64
        if wrap is _wrap32:
            b = wrap(wrap(_wrap32(fract_bits) * 5**b5) << b2)
        else:
            b = wrap(wrap(fract_bits * 5**b5) << b2)
        s = wrap(5**s5 << s2)
        m = wrap(5**m5 << m2)
        tens = wrap(s * 10)
        q = _jdiv(b, s)
        b = wrap(10 * _jmod(b, s))
        m = wrap(m * 10)
        low = b < m
        high = wrap(b + m) > tens
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(q)
        e_form = dec_exp < -3 or dec_exp >= 8
        if e_form:
            high = low = False
        while not low and not high:
            q = _jdiv(b, s)
            b = wrap(10 * _jmod(b, s))
            m = wrap(m * 10)
            if m > 0:
                low = b < m
                high = wrap(b + m) > tens
            else:
                low = high = True  # Java's overflow guard
            digits.append(q)
        low_digit_difference = wrap(wrap(b << 1) - tens)
    else:
        big_s = 5**s5 << s2
        big_b = (fract_bits * 5**b5) << b2
        big_m = 5 ** (m5 + 1) << (m2 + 1)
        ten_s = big_s * 10
        q, r = divmod(big_b, big_s)
        big_b = r * 10
        low = big_b < big_m
        high = big_b + big_m >= ten_s
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(q)
        if dec_exp < -3 or dec_exp >= 8:
            high = low = False
        while not low and not high:
            q, r = divmod(big_b, big_s)
            big_b = r * 10
            big_m *= 10
            low = big_b < big_m
            high = big_b + big_m >= ten_s
            digits.append(q)
        if high and low:
            twice = big_b << 1
            low_digit_difference = (twice > ten_s) - (twice < ten_s)
        else:
            low_digit_difference = 0

    dec_exponent = dec_exp + 1
    if high:
        if low:
            if low_digit_difference == 0:
                if digits[-1] & 1:
                    dec_exponent = _roundup(digits, dec_exponent)
            elif low_digit_difference > 0:
                dec_exponent = _roundup(digits, dec_exponent)
        else:
            dec_exponent = _roundup(digits, dec_exponent)
    return digits, dec_exponent


def _roundup(digits: list[int], dec_exponent: int) -> int:
    i = len(digits) - 1
    q = digits[i]
    if q == 9:
        while q == 9 and i > 0:
            digits[i] = 0
            i -= 1
            q = digits[i]
        if q == 9:
            digits[0] = 1
            return dec_exponent + 1
    digits[i] = q + 1
    return dec_exponent


def _chars(negative: bool, digits: list[int], dec_exponent: int) -> str:
    return _chars_text(negative, "".join(map(str, digits)), dec_exponent)


def _chars_text(negative: bool, text: str, dec_exponent: int) -> str:
    """Lay out digits ``0.d1d2... * 10**dec_exponent`` as ``FloatingDecimal.getChars`` does."""
    n = len(text)
    sign = "-" if negative else ""
    if 0 < dec_exponent < 8:
        if n <= dec_exponent:
            return f"{sign}{text}{'0' * (dec_exponent - n)}.0"
        return f"{sign}{text[:dec_exponent]}.{text[dec_exponent:]}"
    if -3 < dec_exponent <= 0:
        return f"{sign}0.{'0' * -dec_exponent}{text}"
    e = dec_exponent - 1
    return f"{sign}{text[0]}.{text[1:] or '0'}E{e}"


def _from_bits(negative: bool, bin_exp: int, fract_bits: int, n_sig_bits: int) -> str:
    digits, dec_exponent = _dtoa(bin_exp, fract_bits, n_sig_bits)
    return _chars(negative, digits, dec_exponent)


def _slow_double(d: float) -> str:
    bits = _unpack_q(_pack_d(d))[0]
    negative = bool(bits >> 63)
    fract = bits & _SIGNIF_MASK
    bin_exp = (bits >> 52) & 0x7FF
    if bin_exp == 0:
        shift = _EXP_SHIFT + 1 - fract.bit_length()
        fract <<= shift
        bin_exp = 1 - shift
        n_sig = fract.bit_length() - shift  # 64 - leading zeros of the original fraction
    else:
        fract |= _FRACT_HOB
        n_sig = _EXP_SHIFT + 1
    return _from_bits(negative, bin_exp - 1023, fract, n_sig)


_MIN_NORMAL = 2.2250738585072014e-308
_TWO_53 = float(1 << 53)


def _fast(d: float) -> str | None:
    """Java's text from Python's shortest ``repr`` where both provably pick the same digits.

    Holds for normal, non-integral values below 2^53 whose binary significand is not a power
    of two (symmetric rounding interval) and whose shortest form either has two or more digits
    or is printed in plain notation (so Java's forced second E-notation digit never matters).
    In that domain no decimal with 17 or fewer digits lies exactly on a rounding boundary, so
    Java's stop-at-first-fit loop and the shortest-digits search agree digit for digit.
    Returns None outside the domain.
    """
    a = -d if d < 0 else d
    if not (_MIN_NORMAL <= a < _TWO_53) or a.is_integer():
        return None
    if not (_unpack_q(_pack_d(a))[0] & _SIGNIF_MASK):
        return None
    r = repr(a)
    e = r.find("e")
    if e >= 0:
        ip, _, fp = r[:e].partition(".")
        digits = (ip + fp).rstrip("0")
        dec_exponent = int(r[e + 1 :]) + 1
    else:
        ip, _, fp = r.partition(".")
        if ip == "0":
            stripped = fp.lstrip("0")
            dec_exponent = len(stripped) - len(fp)
            digits = stripped
        else:
            digits = (ip + fp).rstrip("0")
            dec_exponent = len(ip)
    if len(digits) < 2 and not -3 <= dec_exponent - 1 < 8:
        return None
    return _chars_text(d < 0, digits, dec_exponent)


def java_double_to_string(d: float) -> str:
    """``Double.toString(d)`` as JDK 17 prints it (``1.0E10``, ``0.001``, ``NaN``, ``-0.0``)."""
    if d != d:
        return "NaN"
    if d == math.inf:
        return "Infinity"
    if d == -math.inf:
        return "-Infinity"
    if d == 0.0:
        return "-0.0" if math.copysign(1.0, d) < 0 else "0.0"
    fast = _fast(d)
    if fast is not None:
        return fast
    return _slow_double(d)


def to_float32(v: float) -> float:
    """Round a Python float to the nearest float32, as Java's ``(float)`` cast does."""
    try:
        return float(_unpack_f(_pack_f(v))[0])
    except OverflowError:
        # struct refuses values beyond float32 range that Java would round to infinity
        if v != v:
            return v
        return math.inf if v > 0 else -math.inf


def java_float_to_string(f: float) -> str:
    """``Float.toString((float) f)`` as JDK 17 prints it."""
    f = to_float32(f)
    if f != f:
        return "NaN"
    if f == math.inf:
        return "Infinity"
    if f == -math.inf:
        return "-Infinity"
    if f == 0.0:
        return "-0.0" if math.copysign(1.0, f) < 0 else "0.0"
    bits = _unpack_i(_pack_f(f))[0]
    negative = bool(bits >> 31)
    fract = bits & 0x7FFFFF
    bin_exp = (bits >> 23) & 0xFF
    if bin_exp == 0:
        shift = 24 - fract.bit_length()
        n_sig = fract.bit_length()
        fract <<= shift
        bin_exp = 1 - shift
    else:
        fract |= 1 << 23
        n_sig = 24
    return _from_bits(negative, bin_exp - 127, fract << (_EXP_SHIFT - 23), n_sig)
