package dev.kconnect.host;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The host's own minimal JSON reader and writer, so that no JSON library sits on the host's
 * class path (plugins bring their own Jackson and must never see one of ours).
 *
 * <p>Reading gives {@link LinkedHashMap} for objects (key order kept), {@link ArrayList} for
 * arrays, {@link String}, {@link Boolean}, {@code null}, and for numbers a {@link Long} when the
 * literal is an integer that fits, a {@link BigInteger} when it does not, and a
 * {@link BigDecimal} otherwise. Writing accepts the same shapes plus any {@link Number},
 * {@link Map} with string keys, {@link Iterable} and arrays of objects; a {@code byte[]} is
 * written as {@code {"$frame": i}} and handed back as the i-th attachment, to travel as a binary
 * frame beside the text ({@link FrameChannel}); anything else is written as its
 * {@code toString()} in a JSON string.
 *
 * <p>Stateless and thread-safe: every call works on its own buffers.
 */
final class Json {

    private Json() {
    }

    /** Parses one JSON text; trailing non-whitespace is an error. */
    static Object parse(String text) {
        Reader reader = new Reader(text);
        reader.skipWhitespace();
        Object value = reader.readValue();
        reader.skipWhitespace();
        if (!reader.atEnd()) {
            throw reader.error("unexpected text after the JSON value");
        }
        return value;
    }

    /** Writes a value as compact JSON text (a {@code byte[]} inside goes as base64 text). */
    static String write(Object value) {
        return write(value, null);
    }

    /**
     * Writes a value as compact JSON text; each {@code byte[]} inside is added to
     * {@code attachments} and written as {@code {"$frame": its index}} (with {@code null}
     * attachments: as base64 text).
     */
    static String write(Object value, List<byte[]> attachments) {
        StringBuilder out = new StringBuilder(256);
        writeValue(out, value, attachments);
        return out.toString();
    }

    private static void writeValue(StringBuilder out, Object value, List<byte[]> attachments) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            writeString(out, (String) value);
        } else if (value instanceof Boolean) {
            out.append(((Boolean) value).booleanValue() ? "true" : "false");
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                out.append("null"); // JSON has no NaN or infinities
            } else {
                out.append(value);
            }
        } else if (value instanceof BigDecimal) {
            out.append(((BigDecimal) value).toString());
        } else if (value instanceof Number) {
            out.append(value);
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString(out, String.valueOf(entry.getKey()));
                out.append(':');
                writeValue(out, entry.getValue(), attachments);
            }
            out.append('}');
        } else if (value instanceof Iterable) {
            out.append('[');
            boolean first = true;
            for (Object item : (Iterable<?>) value) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeValue(out, item, attachments);
            }
            out.append(']');
        } else if (value instanceof Object[]) {
            writeValue(out, List.of((Object[]) value), attachments);
        } else if (value instanceof byte[]) {
            byte[] bytes = (byte[]) value;
            if (attachments == null) {
                writeString(out, java.util.Base64.getEncoder().encodeToString(bytes));
            } else {
                out.append("{\"$frame\":").append(attachments.size()).append('}');
                attachments.add(bytes);
            }
        } else {
            writeString(out, value.toString());
        }
    }

    private static void writeString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20 || Character.isSurrogate(c) && !isPairedSurrogate(s, i)) {
                        // control characters, and lone surrogates (not encodable in UTF-8)
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    private static boolean isPairedSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    /** A cursor over one JSON text. */
    private static final class Reader {
        private final String text;
        private int pos;

        Reader(String text) {
            this.text = text;
        }

        boolean atEnd() {
            return pos >= text.length();
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("Malformed JSON at offset " + pos + ": " + what);
        }

        void skipWhitespace() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    pos++;
                } else {
                    break;
                }
            }
        }

        Object readValue() {
            if (atEnd()) {
                throw error("value expected, text ended");
            }
            char c = text.charAt(pos);
            switch (c) {
                case '{':
                    return readObject();
                case '[':
                    return readArray();
                case '"':
                    return readString();
                case 't':
                    expectWord("true");
                    return Boolean.TRUE;
                case 'f':
                    expectWord("false");
                    return Boolean.FALSE;
                case 'n':
                    expectWord("null");
                    return null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return readNumber();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        private void expectWord(String word) {
            if (!text.startsWith(word, pos)) {
                throw error("'" + word + "' expected");
            }
            pos += word.length();
        }

        private Map<String, Object> readObject() {
            Map<String, Object> map = new LinkedHashMap<>();
            pos++; // '{'
            skipWhitespace();
            if (!atEnd() && text.charAt(pos) == '}') {
                pos++;
                return map;
            }
            while (true) {
                skipWhitespace();
                if (atEnd() || text.charAt(pos) != '"') {
                    throw error("object key expected");
                }
                String key = readString();
                skipWhitespace();
                if (atEnd() || text.charAt(pos) != ':') {
                    throw error("':' expected");
                }
                pos++;
                skipWhitespace();
                map.put(key, readValue());
                skipWhitespace();
                if (atEnd()) {
                    throw error("'}' expected, text ended");
                }
                char c = text.charAt(pos++);
                if (c == '}') {
                    return map;
                }
                if (c != ',') {
                    pos--;
                    throw error("',' or '}' expected");
                }
            }
        }

        private List<Object> readArray() {
            List<Object> list = new ArrayList<>();
            pos++; // '['
            skipWhitespace();
            if (!atEnd() && text.charAt(pos) == ']') {
                pos++;
                return list;
            }
            while (true) {
                skipWhitespace();
                list.add(readValue());
                skipWhitespace();
                if (atEnd()) {
                    throw error("']' expected, text ended");
                }
                char c = text.charAt(pos++);
                if (c == ']') {
                    return list;
                }
                if (c != ',') {
                    pos--;
                    throw error("',' or ']' expected");
                }
            }
        }

        private String readString() {
            pos++; // opening quote
            StringBuilder sb = null;
            int start = pos;
            while (true) {
                if (atEnd()) {
                    throw error("unterminated string");
                }
                char c = text.charAt(pos);
                if (c == '"') {
                    String tail = text.substring(start, pos);
                    pos++;
                    return sb == null ? tail : sb.append(tail).toString();
                }
                if (c < 0x20) {
                    throw error("control character in string");
                }
                if (c != '\\') {
                    pos++;
                    continue;
                }
                if (sb == null) {
                    sb = new StringBuilder();
                }
                sb.append(text, start, pos);
                pos++;
                if (atEnd()) {
                    throw error("unterminated escape");
                }
                char e = text.charAt(pos++);
                switch (e) {
                    case '"':
                    case '\\':
                    case '/':
                        sb.append(e);
                        break;
                    case 'b':
                        sb.append('\b');
                        break;
                    case 'f':
                        sb.append('\f');
                        break;
                    case 'n':
                        sb.append('\n');
                        break;
                    case 'r':
                        sb.append('\r');
                        break;
                    case 't':
                        sb.append('\t');
                        break;
                    case 'u':
                        if (pos + 4 > text.length()) {
                            throw error("short \\u escape");
                        }
                        try {
                            sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("bad \\u escape");
                        }
                        pos += 4;
                        break;
                    default:
                        throw error("bad escape '\\" + e + "'");
                }
                start = pos;
            }
        }

        private Number readNumber() {
            int start = pos;
            boolean integral = true;
            if (text.charAt(pos) == '-') {
                pos++;
            }
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c >= '0' && c <= '9') {
                    pos++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    integral = false;
                    pos++;
                } else {
                    break;
                }
            }
            String literal = text.substring(start, pos);
            try {
                if (integral) {
                    BigInteger big = new BigInteger(literal);
                    return big.bitLength() < 64 ? (Number) big.longValue() : big;
                }
                return new BigDecimal(literal);
            } catch (NumberFormatException e) {
                pos = start;
                throw error("bad number '" + literal + "'");
            }
        }
    }
}
