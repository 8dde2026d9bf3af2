package dev.kconnect.host;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Orders plugin version strings as Kafka Connect does (it compares versions as Maven
 * artifact versions): {@code 1.10 > 1.9}, {@code 2.0-alpha1 < 2.0-beta < 2.0-rc1 <
 * 2.0-SNAPSHOT < 2.0 = 2.0.0 = 2.0.Final < 2.0-sp1}, unknown qualifiers after the known ones
 * (alphabetically), numbers after qualifiers. Kafka uses this order to choose between copies of
 * one plugin class found in several locations: the highest version is the one it runs.
 *
 * <p>A version string is read into nested lists: {@code .} separates items, {@code -} and a
 * change between digits and letters open a sub-list, trailing "zero" items ({@code 0},
 * {@code ga}, {@code final}, {@code release}, empty) are dropped from every list.
 *
 * <p>Immutable and thread-safe.
 */
final class PluginVersion implements Comparable<PluginVersion> {

    private static final List<String> KNOWN_QUALIFIERS =
            List.of("alpha", "beta", "milestone", "rc", "snapshot", "", "sp");
    private static final Map<String, String> QUALIFIER_ALIASES =
            Map.of("ga", "", "final", "", "release", "", "cr", "rc");
    private static final String RELEASE_RANK = String.valueOf(KNOWN_QUALIFIERS.indexOf(""));

    private final String text;
    private final Items items;

    PluginVersion(String text) {
        this.text = text;
        this.items = parse(text);
    }

    @Override
    public int compareTo(PluginVersion other) {
        return items.compareTo(other.items);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PluginVersion && compareTo((PluginVersion) o) == 0;
    }

    @Override
    public int hashCode() {
        return items.toString().hashCode();
    }

    @Override
    public String toString() {
        return text;
    }

    // ----------------------------------------------------------------------------- the items

    /** One element of a parsed version: a number, a qualifier or a sub-list. */
    private interface Item {
        /** Compares with another item; {@code null} stands for a missing (zero) item. */
        int compareTo(Item other);

        /** True when the item equals "nothing" (0, the release qualifier, an empty list). */
        boolean isZero();
    }

    private static final class Number implements Item {
        final BigInteger value;

        Number(String digits) {
            this.value = new BigInteger(digits);
        }

        @Override
        public int compareTo(Item other) {
            if (other == null) {
                return value.signum() == 0 ? 0 : 1;
            }
            if (other instanceof Number) {
                return value.compareTo(((Number) other).value);
            }
            return 1; // a number ranks above a qualifier and a sub-list
        }

        @Override
        public boolean isZero() {
            return value.signum() == 0;
        }

        @Override
        public String toString() {
            return value.toString();
        }
    }

    private static final class Qualifier implements Item {
        final String value;

        Qualifier(String raw, boolean followedByDigit) {
            String q = raw;
            if (followedByDigit && q.length() == 1) {
                // "a1", "b2", "m3" are short for alpha, beta, milestone
                switch (q.charAt(0)) {
                    case 'a':
                        q = "alpha";
                        break;
                    case 'b':
                        q = "beta";
                        break;
                    case 'm':
                        q = "milestone";
                        break;
                    default:
                        break;
                }
            }
            this.value = QUALIFIER_ALIASES.getOrDefault(q, q);
        }

        /** A sortable key: the rank of a known qualifier, or "unknown rank" + the text. */
        private static String rank(String qualifier) {
            int i = KNOWN_QUALIFIERS.indexOf(qualifier);
            return i >= 0 ? String.valueOf(i) : KNOWN_QUALIFIERS.size() + "-" + qualifier;
        }

        @Override
        public int compareTo(Item other) {
            if (other == null) {
                return rank(value).compareTo(RELEASE_RANK);
            }
            if (other instanceof Qualifier) {
                return rank(value).compareTo(rank(((Qualifier) other).value));
            }
            return -1; // below numbers and sub-lists
        }

        @Override
        public boolean isZero() {
            return rank(value).equals(RELEASE_RANK);
        }

        @Override
        public String toString() {
            return value;
        }
    }

    private static final class Items implements Item {
        final List<Item> list = new ArrayList<>();

        @Override
        public int compareTo(Item other) {
            if (other == null) {
                return list.isEmpty() ? 0 : list.get(0).compareTo(null);
            }
            if (other instanceof Number) {
                return -1;
            }
            if (other instanceof Qualifier) {
                return 1;
            }
            List<Item> theirs = ((Items) other).list;
            for (int i = 0; i < Math.max(list.size(), theirs.size()); i++) {
                Item left = i < list.size() ? list.get(i) : null;
                Item right = i < theirs.size() ? theirs.get(i) : null;
                int c = left == null ? (right == null ? 0 : -right.compareTo(null)) : left.compareTo(right);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        }

        @Override
        public boolean isZero() {
            return list.isEmpty();
        }

        /** Drops trailing zero items, looking through trailing sub-lists. */
        void trim() {
            for (int i = list.size() - 1; i >= 0; i--) {
                Item item = list.get(i);
                if (item.isZero()) {
                    list.remove(i);
                } else if (!(item instanceof Items)) {
                    break;
                }
            }
        }

        @Override
        public String toString() {
            return list.toString();
        }
    }

    // ----------------------------------------------------------------------------- parsing

    private static Items parse(String version) {
        String v = version.toLowerCase(Locale.ROOT);
        Items root = new Items();
        Items current = root;
        Deque<Items> opened = new ArrayDeque<>();
        opened.push(root);
        boolean inDigits = false;
        int start = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '.' || c == '-') {
                current.list.add(i == start ? new Number("0") : item(inDigits, v.substring(start, i), false));
                start = i + 1;
                if (c == '-') {
                    current = openSubList(current, opened);
                }
            } else if (Character.isDigit(c)) {
                if (!inDigits && i > start) {
                    // letters then digits ("rc1"): the qualifier, then a sub-list for the number
                    current.list.add(new Qualifier(v.substring(start, i), true));
                    start = i;
                    current = openSubList(current, opened);
                }
                inDigits = true;
            } else {
                if (inDigits && i > start) {
                    // digits then letters ("1rc"): the number, then a sub-list for the qualifier
                    current.list.add(item(true, v.substring(start, i), false));
                    start = i;
                    current = openSubList(current, opened);
                }
                inDigits = false;
            }
        }
        if (v.length() > start) {
            current.list.add(item(inDigits, v.substring(start), false));
        }
        while (!opened.isEmpty()) {
            opened.pop().trim();
        }
        return root;
    }

    private static Items openSubList(Items current, Deque<Items> opened) {
        Items sub = new Items();
        current.list.add(sub);
        opened.push(sub);
        return sub;
    }

    private static Item item(boolean digits, String text, boolean followedByDigit) {
        if (digits) {
            // a "digit" by Character.isDigit may be a non-ASCII one BigInteger also accepts
            try {
                return new Number(text);
            } catch (NumberFormatException e) {
                return new Qualifier(text, followedByDigit);
            }
        }
        return new Qualifier(text, followedByDigit);
    }
}
