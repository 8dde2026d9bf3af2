"""Reproducible workloads for the benchmarks: record shapes that look like users' records.

The benches used to time one shape, a 3-field struct of a handful of distinct values, which
tells a reader the opposite of what their own records would get. This module generates six
shapes (``SHAPES``), each from ``random.Random(seed)`` alone, so every run and both runtimes
see the same records:

* ``narrow`` -- the seed's ``table01`` struct (id INT32, user_id and item optional STRING),
  with thousands of distinct values; no key;
* ``customer`` -- the 10-field record of issue #29: int64 id, names in many scripts, an email
  that is null in 20% of rows, a Decimal (scale 2), a Timestamp, an array of tags, an address
  struct with an optional int32 zip, a boolean, a double and an optional note; key {id};
* ``wide`` -- a 40-column ``orders`` row as the JDBC source produces it (int16/32/64, strings,
  booleans, float32/64, Decimals, Date, Time, Timestamp, bytes; ~25% optional); key {id};
* ``nested`` -- an order with customer -> address -> geo structs, an array of line-item
  structs, a map<string,int64>, a map<int32,string>, an array of arrays of strings and an
  optional gift struct; key: the order id string;
* ``schemaless`` -- tracking events as JSON without schemas: maps of strings, integers,
  floats, booleans and nulls, nested maps and lists, key sets that vary; key null or a string;
* ``debezium`` -- Debezium PostgreSQL change events (before/after/source/op/ts_ms/transaction
  envelope; r, c, u and d operations, each delete followed by its tombstone); key {id}.

Strings come from pools (first and last names, streets, cities, e-mail domains, product words)
combined into thousands of distinct values, with unicode where real data has it (é, ü, ñ, ß,
日本語, emoji); optional fields are null in 5-20% of rows; numbers, Decimals and timestamps
are spread over their ranges (timestamps over ten years).

``records`` gives the records as kconnect's data model holds them, ``encoded`` their keys and
values as kconnect's JsonConverter writes them (``schemas.enable`` per shape), and
``write_records_file`` / ``read_records_file`` the binary file the Java side of the per-stage
benches reads (per record: int32 key length, -1 for null, the key; int32 value length, -1 for
null, the value; int64 timestamp; big-endian, as Java's DataInputStream reads them).

``smt_configs(shape)`` gives, for each of the 16 built-in transformations, one connector
configuration that is valid on the shape (plus the ``$Key`` variants where the key is a
struct), ``chains(shape)`` three typical chains, ``SINK_CHAIN`` the issue's six SMTs on the
customer shape and ``SOURCE_CHAIN`` a chain for FileStreamSource lines. The fields they name
are picked from the shape's schema (or, schemaless, from the generated maps) by type, by one
generic function: nothing here is a per-shape table, so a new shape gets its configurations
for free. ``tests/unit/bench/test_workloads.py`` runs every configuration over every shape
through kconnect's TransformationChain.
"""

from __future__ import annotations

import datetime as dt
import decimal
import random
import struct
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kconnect.api import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type

__all__ = [
    "SHAPES",
    "SINK_CHAIN",
    "SOURCE_CHAIN",
    "Generated",
    "Shape",
    "chains",
    "encode_records",
    "encoded",
    "read_records_file",
    "records",
    "smt_configs",
    "write_records_file",
]


@dataclass(frozen=True)
class Shape:
    name: str
    description: str
    schemas_enable: bool  # False only for "schemaless"


@dataclass(frozen=True)
class Generated:
    """One record as kconnect's data model holds it (what a converter decodes it into)."""

    key_schema: Schema | None
    key: Any
    value_schema: Schema | None
    value: Any
    timestamp: int  # epoch ms


SHAPES: dict[str, Shape] = {
    s.name: s
    for s in (
        Shape("narrow", "3-field struct table01 (id, user_id, item); no key", True),
        Shape(
            "customer",
            "10-field customer: Decimal, Timestamp, array, nested struct, nulls, unicode; key {id}",
            True,
        ),
        Shape(
            "wide", "40-column JDBC row (orders), every primitive and logical type; key {id}", True
        ),
        Shape(
            "nested",
            "order: 4-level structs, array of structs, maps (string and int keys), array of "
            "arrays; string key",
            True,
        ),
        Shape("schemaless", "tracking events as JSON maps, no schemas; key null or string", False),
        Shape(
            "debezium",
            "Debezium PostgreSQL change events (r/c/u/d, tombstones after deletes); key {id}",
            True,
        ),
    )
}

# ---------------------------------------------------------------------------------- pools


def _words(text: str, sep: str | None = None) -> list[str]:
    return text.split(sep)


FIRST_NAMES = _words(
    "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara "
    "Richard Susan Joseph Jessica Thomas Sarah Charles Karen Daniel Lisa Matthew Nancy Anthony "
    "Sandra Mark Ashley Emily Olivia Noah Liam Emma Ava Sophia Isabella Lucas Mia Ethan Harper "
    "José María Zoë Chloé Renée Amélie Hélène Françoise Jérôme Loïc Anaïs Noémie Jürgen Jörg "
    "Günther Björn Søren Åsa Ærøe Øystein Mårten Ñuño Íñigo Begoña Nuño Ramón Inés Joaquín "
    "João Conceição Gonçalo Łukasz Paweł Małgorzata Wojciech Zofia Dvořák Jiří Tomáš Šárka "
    "Ștefan Ioana Gábor Zoltán Ágnes Dmitri Natalia Sergei Olga Ivan Anastasia Yusuf Ayşe "
    "Mehmet Çağla Giorgos Eleni Kwame Ama Chidi Ngozi Priya Arjun Ananya Rohan Wei Li Jun Mei "
    "Hiroshi Yuki 翔太 陽菜 美咲 蓮 大翔 結衣 지민 서연 민준 Дмитрий Елена Νίκος Σοφία "
    "Siobhán Seán Aoife Ciarán Eoghan Niamh"
)

LAST_NAMES = _words(
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez "
    "Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris "
    "Müller Schmidt Schneider Fischer Weiß Weber Meyer Wagner Becker Schäfer Groß Köhler Krüger "
    "Hoffmann Schröder Núñez Peña Muñoz Ibáñez Castañeda Gómez Sánchez Díaz Pérez Martín "
    "Dubois Lefèvre Lévêque Bérénger Giraud Mercier O'Brien O'Neill McCarthy Ó'Súilleabháin "
    "Kowalski Wiśniewski Wójcik Łukasiewicz Dvořák Novák Svoboda Horváth Nagy Kovács Popescu "
    "Ionescu Yılmaz Öztürk Çelik Şahin Andersson Johansson Øvergård Ødegård Håkansson "  # noqa: RUF001
    "Rossi Russo Esposito Bianchi Romano Ricci Silva Santos Oliveira Souza Conceição "
    "Ivanov Petrov Smirnov Papadopoulos Nakamura Tanaka Suzuki Watanabe 佐藤 鈴木 高橋 田中 "
    "伊藤 김 이 박 Nguyen Tran Pham Kumar Singh Patel Sharma Okafor Mensah Abdullah Haddad"
)

CITIES = _words(
    "New York|Los Angeles|Chicago|Houston|Phoenix|Philadelphia|San Antonio|San Diego|Dallas|"
    "Seattle|Boston|Denver|Portland|Austin|Toronto|Montréal|Québec|Vancouver|México|Guadalajara|"
    "São Paulo|Rio de Janeiro|Brasília|Buenos Aires|Bogotá|Medellín|Lima|Santiago|London|"
    "Manchester|Edinburgh|Dublin|Cork|Paris|Lyon|Marseille|Saint-Étienne|Besançon|Orléans|"
    "Berlin|Hamburg|München|Köln|Düsseldorf|Frankfurt am Main|Nürnberg|Würzburg|Göttingen|"
    "Zürich|Genève|Basel|Bern|Wien|Graz|Salzburg|Amsterdam|Rotterdam|Den Haag|Antwerpen|"
    "Bruxelles|Luxembourg|Madrid|Barcelona|Málaga|Sevilla|A Coruña|Logroño|Lisboa|Porto|"
    "Roma|Milano|Napoli|Torino|Firenze|Kraków|Warszawa|Łódź|Wrocław|Gdańsk|Praha|Brno|"
    "Budapest|Bucureşti|Sofia|Athína|İstanbul|Ankara|København|Aarhus|Malmö|Göteborg|Stockholm|"
    "Oslo|Tromsø|Helsinki|Reykjavík|Tallinn|Rīga|Vilnius|Kyiv|Tel Aviv|Dubai|Mumbai|Bengaluru|"
    "Singapore|Jakarta|Manila|Hà Nội|Bangkok|Seoul|서울|Busan|東京|大阪|京都|札幌|Osaka|"
    "上海|北京|Shenzhen|Sydney|Melbourne|Auckland|Wellington|Cape Town|Lagos|Nairobi|Accra",
    "|",
)

STREETS = _words(
    "Main St|Oak Ave|Maple Dr|Elm St|Cedar Ln|Pine Rd|Washington Blvd|Lake View Rd|Park Ave|"
    "Hauptstraße|Bahnhofstraße|Königsallee|Schloßstraße|Gartenweg|Lindenallee|Mühlenweg|"
    "Rue de la Paix|Rue du Faubourg-Saint-Honoré|Avenue des Champs-Élysées|Boulevard Haussmann|"
    "Calle Mayor|Calle de Alcalá|Avenida de la Constitución|Paseo de Gràcia|Rúa do Franco|"
    "Avenida Paulista|Rua Augusta|Via Roma|Via dei Condotti|Corso Vittorio Emanuele|"
    "Ulica Długa|Náměstí Míru|Váci utca|Strøget|Drottninggatan|Karl Johans gate|Aleksanterinkatu|"
    "High Street|Station Road|Church Lane|Victoria Road|Mill Lane|Queen's Road|King's Parade|"
    "銀座通り|表参道|明治通り|Tverskaya ulitsa|Nevsky prospekt|Odos Ermou|İstiklal Caddesi|"
    "Sunset Blvd|Broadway|Market St|Mission St|Valencia St|Castro St|Lombard St|Ocean Ave",
    "|",
)

EMAIL_DOMAINS = _words(
    "gmail.com yahoo.com outlook.com hotmail.com icloud.com proton.me aol.com gmx.de web.de "
    "t-online.de gmx.ch bluewin.ch orange.fr free.fr laposte.net libero.it tiscali.it "
    "yahoo.co.jp docomo.ne.jp naver.com qq.com 163.com mail.ru yandex.ru seznam.cz wp.pl "
    "example.com example.org acme.io contoso.com fabrikam.net"
)

PRODUCT_ADJECTIVES = _words(
    "Ergonomic Rustic Sleek Incredible Handcrafted Gorgeous Practical Refined Recycled "
    "Licensed Modern Vintage Compact Deluxe Premium Organic Artisanal Smart Wireless Portable "
    "Durable Lightweight Waterproof Classic Tiny Giant Electric Frozen Fresh Fantastic "
    "Élégant Fabuleux Großartig Schön Pequeño Mágico Bonito Piccolo Bellissimo Crème Brûlée "
    "Café Über Mañana Jalapeño Smörgås 極上 特選 Nordic Alpine Coastal"
)

PRODUCT_NOUNS = _words(
    "Chair Table Lamp Desk Sofa Mug Kettle Backpack Wallet Watch Shoes Jacket Scarf Gloves "
    "Hat Bottle Blender Toaster Keyboard Mouse Monitor Headphones Speaker Camera Tripod "
    "Notebook Pen Pencil Stapler Cushion Blanket Towel Rug Mirror Vase Clock Plant Candle "
    "Cheese Bread Coffee Tea Chocolate Honey Olive-Oil Pasta Rice Salsa Croissant Baguette "
    "Brezel Strudel Churro Gelato Sushi-Set Ramen Matcha Kimchi Tortilla Empanada Pierogi "
    "Smörgåsbord Saucisson Fromage Käse Wurst Bicicleta Fahrrad Vélo 鞄 時計 茶碗"
)

WORDS = _words(
    "please deliver to the back door leave at reception call before arrival fragile handle "
    "with care gift wrap no invoice in the parcel customer prefers morning delivery address "
    "changed last week rückfragen bitte per e-mail livraison rapide merci beaucoup gracias "
    "por su compra entregar en portería grazie mille déjà vu naïve façade smörgåsbord "
    "Straße café résumé jalapeño 日本語 のお客様 配達 ありがとう 감사합니다 спасибо "
    "🎉 👍 🚚 📦 ✓ ★ ❤️ 😊 order #1234 ref: 'A-77' said \"fragile\" path C:\\temp\\x "
    "tab\there 50% off €12,50 £9.99 ¥1200 ½ kg ≈ 3 lbs",
    " ",
)

TAGS = _words(
    "vip newsletter b2b b2c wholesale early-adopter loyal returning new churn-risk eco "
    "früh-bucher stammkunde client-fidèle cliente-frecuente 返品 常連 🔥hot ⭐gold beta "
    "mobile desktop referral affiliate student senior staff partner press"
)

COUNTRIES = _words(
    "US CA MX BR AR GB IE FR DE CH AT NL BE ES PT IT PL CZ HU SE NO DK FI JP KR CN IN AU"
)
CURRENCIES = _words("EUR USD GBP CHF JPY SEK NOK PLN CAD AUD")
STATUSES = _words("pending paid packed shipped in_transit delivered cancelled returned refunded")
CHANNELS = _words("web app store phone marketplace partner")
USER_AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36",
    "okhttp/4.12.0",
    "curl/8.7.1",
)
CARRIERS = _words("DHL UPS FedEx USPS GLS DPD Hermes PostNL Colissimo Correos ヤマト運輸 佐川急便")
EVENTS = _words("page_view add_to_cart remove_from_cart purchase search login logout signup")
LOCALES = _words(
    "en-US en-GB de-DE de-CH fr-FR fr-CA es-ES es-MX pt-BR it-IT pl-PL ja-JP ko-KR zh-CN"
)
COUNTER_NAMES = _words("views clicks cart_adds wishlist shares ratings retries coupons reviews")

# Timestamps: spread over ten years (2015-01-01 .. 2024-12-31); record timestamps: a stream
# that starts 2025-03-01 and advances about 0.5 s per record, as a topic's records do.
_T0 = 1_420_070_400_000
_TEN_YEARS_MS = 3_653 * 86_400_000
_STREAM_START = 1_740_787_200_000
_UTC = dt.UTC
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=_UTC)


class _Random(random.Random):
    """``random.Random`` whose integer draws take one ``random()`` call each (ranges below
    2**53; larger ones go to the base class): the stock ones loop over ``getrandbits`` and made
    generating 200,000 wide records take half a minute. Deterministic for a seed, as the base."""

    def _randbelow(self, n: int) -> int:
        if n <= _EXACT_BELOW:
            return int(self.random() * n)
        return int(super()._randbelow(n))  # type: ignore[misc]

    def choice(self, seq: Any) -> Any:
        return seq[int(self.random() * len(seq))]

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        if step == 1 and 0 < stop - start <= _EXACT_BELOW:
            return start + int(self.random() * (stop - start))
        return super().randrange(start, stop, step)

    def randint(self, a: int, b: int) -> int:
        return self.randrange(a, b + 1)


_EXACT_BELOW = 1 << 53


def _maybe(rng: random.Random, null_rate: float, make: Callable[[], Any]) -> Any:
    return None if rng.random() < null_rate else make()


def _full_name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def _ascii_slug(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(c for c in folded.lower() if c.isalnum())


def _email(rng: random.Random, name: str) -> str:
    first, _, last = name.partition(" ")
    local = f"{_ascii_slug(first) or 'user'}.{_ascii_slug(last) or 'x'}"
    if rng.random() < 0.6:
        local += str(rng.randrange(1, 10_000))
    return f"{local}@{rng.choice(EMAIL_DOMAINS)}"


def _street(rng: random.Random) -> str:
    return f"{rng.randint(1, 9_999)} {rng.choice(STREETS)}"


def _product(rng: random.Random) -> str:
    return f"{rng.choice(PRODUCT_ADJECTIVES)} {rng.choice(PRODUCT_NOUNS)}"


def _text(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _decimal(rng: random.Random, max_digits: int = 10) -> decimal.Decimal:
    """Scale 2, magnitudes from cents to 10^(max_digits-2), 10% negative."""
    unscaled = rng.randrange(10 ** rng.randint(1, max_digits))
    if rng.random() < 0.1:
        unscaled = -unscaled
    return decimal.Decimal(unscaled).scaleb(-2)


def _double(rng: random.Random) -> float:
    """Doubles as data holds them: prices, ratios, integral values, tiny and huge ones."""
    form = rng.random()
    if form < 0.4:
        return round(rng.uniform(0, 1_000), 2)
    if form < 0.6:
        return float(rng.randrange(-1_000, 100_000))
    if form < 0.8:
        return rng.random()
    return (-1 if rng.random() < 0.2 else 1) * 10 ** rng.uniform(-6, 12)


def _float32(rng: random.Random) -> float:
    """A double that a float32 holds exactly, so it decodes back to itself."""
    x = round(rng.uniform(0, 0.5), 3) if rng.random() < 0.8 else rng.uniform(-1e6, 1e6)
    return float(struct.unpack(">f", struct.pack(">f", x))[0])


def _spread_int(rng: random.Random, bits: int, signed: bool = False) -> int:
    """An integer spread over its range's magnitudes (log-uniform), not only small ones."""
    v = rng.getrandbits(rng.randint(1, bits - 1))
    return -v if signed and rng.random() < 0.2 else v


def _instant_ms(rng: random.Random) -> int:
    return _T0 + rng.randrange(_TEN_YEARS_MS)


def _timestamp(rng: random.Random) -> dt.datetime:
    return _EPOCH + dt.timedelta(milliseconds=_instant_ms(rng))


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:]}"


def _stream_times(rng: random.Random, n: int) -> list[int]:
    return [_STREAM_START + i * 500 + rng.randrange(500) for i in range(n)]


# ---------------------------------------------------------------------------------- shapes


def _narrow(rng: random.Random, n: int) -> Iterator[Generated]:
    schema = (
        SchemaBuilder.struct()
        .name("table01")
        .field("id", Schema.INT32_SCHEMA)
        .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
        .field("item", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    for i, ts in enumerate(_stream_times(rng, n)):
        user = _maybe(
            rng,
            0.05,
            lambda: f"{_ascii_slug(rng.choice(FIRST_NAMES)) or 'u'}{rng.randrange(10**5)}",
        )
        item = _maybe(rng, 0.1, lambda: _product(rng))
        yield Generated(None, None, schema, Struct.trusted(schema, [i, user, item]), ts)


_ADDRESS = (
    SchemaBuilder.struct()
    .name("customer.address")
    .field("street", Schema.STRING_SCHEMA)
    .field("city", Schema.STRING_SCHEMA)
    .field("zip", Schema.OPTIONAL_INT32_SCHEMA)
    .build()
)


def _customer(rng: random.Random, n: int) -> Iterator[Generated]:
    schema = (
        SchemaBuilder.struct()
        .name("customer")
        .field("id", Schema.INT64_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("email", Schema.OPTIONAL_STRING_SCHEMA)
        .field("balance", Decimal.schema(2))
        .field("created_at", Timestamp.SCHEMA)
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("address", _ADDRESS)
        .field("vip", Schema.BOOLEAN_SCHEMA)
        .field("score", Schema.FLOAT64_SCHEMA)
        .field("note", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    key_schema = (
        SchemaBuilder.struct().name("customer_key").field("id", Schema.INT64_SCHEMA).build()
    )
    for i, ts in enumerate(_stream_times(rng, n)):
        cid = 1_000_000 + i * 17 + rng.randrange(17)
        name = _full_name(rng)
        address = Struct.trusted(
            _ADDRESS,
            [
                _street(rng),
                rng.choice(CITIES),
                _maybe(rng, 0.1, lambda: rng.randint(1_000, 99_999)),
            ],
        )
        value = Struct.trusted(
            schema,
            [
                cid,
                name,
                None if rng.random() < 0.2 else _email(rng, name),
                _decimal(rng),
                _timestamp(rng),
                rng.sample(TAGS, rng.randint(0, 5)),
                address,
                rng.random() < 0.15,
                _double(rng),
                _maybe(rng, 0.15, lambda: _text(rng, 1, 25)),
            ],
        )
        yield Generated(key_schema, Struct.trusted(key_schema, [cid]), schema, value, ts)


def _wide_columns() -> list[
    tuple[str, Schema, float, Callable[[random.Random, dict[str, Any]], Any]]
]:
    """(name, schema, null rate, make value) of the 40 columns; ``row`` holds the ones made."""

    def o(b: SchemaBuilder) -> Schema:
        return b.optional().build()

    def dec() -> SchemaBuilder:
        return Decimal.builder(2)

    return [
        ("id", Schema.INT64_SCHEMA, 0, lambda r, row: row["_i"] + 5_000_000),
        ("customer_id", Schema.INT32_SCHEMA, 0, lambda r, row: r.randrange(1, 2_000_000)),
        ("store_id", Schema.INT16_SCHEMA, 0, lambda r, row: r.randrange(1, 3_000)),
        (
            "order_number",
            Schema.STRING_SCHEMA,
            0,
            lambda r, row: f"ORD-{r.randint(2015, 2024)}-{r.randrange(10**7):07d}",
        ),
        ("status", Schema.STRING_SCHEMA, 0, lambda r, row: r.choice(STATUSES)),
        ("channel", Schema.OPTIONAL_STRING_SCHEMA, 0.1, lambda r, row: r.choice(CHANNELS)),
        ("currency", Schema.STRING_SCHEMA, 0, lambda r, row: r.choice(CURRENCIES)),
        ("subtotal", dec().build(), 0, lambda r, row: _decimal(r, 8)),
        ("tax", dec().build(), 0, lambda r, row: _decimal(r, 6)),
        ("discount", o(dec()), 0.2, lambda r, row: _decimal(r, 5)),
        ("total", dec().build(), 0, lambda r, row: _decimal(r, 9)),
        ("shipping_cost", Schema.FLOAT64_SCHEMA, 0, lambda r, row: _double(r)),
        ("weight_kg", Schema.FLOAT64_SCHEMA, 0, lambda r, row: round(r.uniform(0.01, 80), 3)),
        ("discount_rate", Schema.FLOAT32_SCHEMA, 0, lambda r, row: _float32(r)),
        ("quantity", Schema.INT32_SCHEMA, 0, lambda r, row: _spread_int(r, 20)),
        ("is_gift", Schema.BOOLEAN_SCHEMA, 0, lambda r, row: r.random() < 0.1),
        ("is_paid", Schema.BOOLEAN_SCHEMA, 0, lambda r, row: r.random() < 0.8),
        ("created_at", Timestamp.SCHEMA, 0, lambda r, row: _timestamp(r)),
        ("updated_at", o(Timestamp.builder()), 0.15, lambda r, row: _timestamp(r)),
        (
            "order_date",
            Date.SCHEMA,
            0,
            lambda r, row: dt.date(2015, 1, 1) + dt.timedelta(days=r.randrange(3_653)),
        ),
        (
            "ship_date",
            o(Date.builder()),
            0.2,
            lambda r, row: dt.date(2015, 1, 1) + dt.timedelta(days=r.randrange(3_653)),
        ),
        (
            "delivery_slot",
            Time.SCHEMA,
            0,
            lambda r, row: (
                dt.datetime(2000, 1, 1) + dt.timedelta(milliseconds=r.randrange(86_400_000))
            ).time(),
        ),
        (
            "customer_name",
            Schema.STRING_SCHEMA,
            0,
            lambda r, row: row.setdefault("_name", _full_name(r)),
        ),
        ("customer_email", Schema.STRING_SCHEMA, 0, lambda r, row: _email(r, row["_name"])),
        (
            "phone",
            Schema.OPTIONAL_STRING_SCHEMA,
            0.15,
            lambda r, row: f"+{r.randint(1, 99)} {r.randrange(10**3):03d} {r.randrange(10**7):07d}",
        ),
        ("shipping_street", Schema.STRING_SCHEMA, 0, lambda r, row: _street(r)),
        ("shipping_city", Schema.STRING_SCHEMA, 0, lambda r, row: r.choice(CITIES)),
        (
            "shipping_zip",
            Schema.OPTIONAL_INT32_SCHEMA,
            0.05,
            lambda r, row: r.randint(1_000, 99_999),
        ),
        ("shipping_country", Schema.STRING_SCHEMA, 0, lambda r, row: r.choice(COUNTRIES)),
        ("billing_same", Schema.BOOLEAN_SCHEMA, 0, lambda r, row: r.random() < 0.7),
        ("notes", Schema.OPTIONAL_STRING_SCHEMA, 0.2, lambda r, row: _text(r, 1, 30)),
        (
            "coupon_code",
            Schema.OPTIONAL_STRING_SCHEMA,
            0.2,
            lambda r, row: f"{_ascii_slug(r.choice(PRODUCT_NOUNS)).upper()[:6]}{r.randrange(100)}",
        ),
        ("sales_rep", Schema.OPTIONAL_STRING_SCHEMA, 0.15, lambda r, row: _full_name(r)),
        (
            "ip_address",
            Schema.STRING_SCHEMA,
            0,
            lambda r, row: ".".join(str(r.randrange(256)) for _ in range(4)),
        ),
        ("user_agent", Schema.STRING_SCHEMA, 0, lambda r, row: r.choice(USER_AGENTS)),
        ("checksum", Schema.BYTES_SCHEMA, 0, lambda r, row: r.randbytes(16)),
        (
            "attachment",
            Schema.OPTIONAL_BYTES_SCHEMA,
            0.2,
            lambda r, row: r.randbytes(r.randint(0, 64)),
        ),
        ("priority", Schema.INT16_SCHEMA, 0, lambda r, row: r.randrange(-5, 10)),
        ("row_version", Schema.INT64_SCHEMA, 0, lambda r, row: _spread_int(r, 63)),
        ("loyalty_points", Schema.OPTIONAL_INT32_SCHEMA, 0.1, lambda r, row: _spread_int(r, 31)),
    ]


def _wide(rng: random.Random, n: int) -> Iterator[Generated]:
    columns = _wide_columns()
    builder = SchemaBuilder.struct().name("orders")
    for name, col_schema, _, _ in columns:
        builder.field(name, col_schema)
    schema = builder.build()
    key_schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
    for i, ts in enumerate(_stream_times(rng, n)):
        row: dict[str, Any] = {"_i": i}
        values = [
            None if rate and rng.random() < rate else make(rng, row) for _, _, rate, make in columns
        ]
        yield Generated(
            key_schema,
            Struct.trusted(key_schema, [values[0]]),
            schema,
            Struct.trusted(schema, values),
            ts,
        )


def _nested_schemas() -> dict[str, Schema]:
    geo = (
        SchemaBuilder.struct()
        .name("shop.Geo")
        .optional()
        .field("lat", Schema.FLOAT64_SCHEMA)
        .field("lon", Schema.FLOAT64_SCHEMA)
        .build()
    )
    address = (
        SchemaBuilder.struct()
        .name("shop.Address")
        .field("street", Schema.STRING_SCHEMA)
        .field("city", Schema.STRING_SCHEMA)
        .field("zip", Schema.OPTIONAL_INT32_SCHEMA)
        .field("geo", geo)
        .build()
    )
    customer = (
        SchemaBuilder.struct()
        .name("shop.Customer")
        .field("id", Schema.INT64_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("email", Schema.OPTIONAL_STRING_SCHEMA)
        .field("address", address)
        .build()
    )
    item = (
        SchemaBuilder.struct()
        .name("shop.LineItem")
        .field("sku", Schema.STRING_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("qty", Schema.INT32_SCHEMA)
        .field("unit_price", Decimal.schema(2))
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .build()
    )
    gift = (
        SchemaBuilder.struct()
        .name("shop.Gift")
        .optional()
        .field("message", Schema.STRING_SCHEMA)
        .field("wrap", Schema.BOOLEAN_SCHEMA)
        .build()
    )
    order = (
        SchemaBuilder.struct()
        .name("shop.Order")
        .field("order_id", Schema.STRING_SCHEMA)
        .field("placed_at", Timestamp.SCHEMA)
        .field("customer", customer)
        .field("items", SchemaBuilder.array(item).build())
        .field("counters", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build())
        .field(
            "status_history",
            SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(),
        )
        .field(
            "shipments",
            SchemaBuilder.array(SchemaBuilder.array(Schema.STRING_SCHEMA).build()).build(),
        )
        .field("gift", gift)
        .field("total", Schema.FLOAT64_SCHEMA)
        .build()
    )
    return {
        "geo": geo,
        "address": address,
        "customer": customer,
        "item": item,
        "gift": gift,
        "order": order,
    }


def _nested(rng: random.Random, n: int) -> Iterator[Generated]:
    s = _nested_schemas()
    for ts in _stream_times(rng, n):
        order_id = _uuid(rng)
        name = _full_name(rng)
        geo = _maybe(
            rng,
            0.3,
            lambda: Struct.trusted(
                s["geo"], [round(rng.uniform(-90, 90), 6), round(rng.uniform(-180, 180), 6)]
            ),
        )
        address = Struct.trusted(
            s["address"],
            [
                _street(rng),
                rng.choice(CITIES),
                _maybe(rng, 0.1, lambda: rng.randint(1_000, 99_999)),
                geo,
            ],
        )
        customer = Struct.trusted(
            s["customer"],
            [
                rng.randrange(1, 10**9),
                name,
                None if rng.random() < 0.15 else _email(rng, name),
                address,
            ],
        )
        items = [
            Struct.trusted(
                s["item"],
                [
                    f"SKU-{rng.randrange(10**6):06d}",
                    _product(rng),
                    rng.randint(1, 12),
                    _decimal(rng, 7),
                    rng.sample(TAGS, rng.randint(0, 3)),
                ],
            )
            for _ in range(rng.randint(1, 6))
        ]
        counters = {c: _spread_int(rng, 40) for c in rng.sample(COUNTER_NAMES, rng.randint(1, 5))}
        steps = sorted(rng.sample(range(1, 10_000), rng.randint(1, 4)))
        history = {k: rng.choice(STATUSES) for k in steps}
        shipments = [
            [rng.choice(CARRIERS), f"{rng.randrange(10**12):012d}", rng.choice(STATUSES)][
                : rng.randint(1, 3)
            ]
            for _ in range(rng.randint(0, 3))
        ]
        gift = _maybe(
            rng, 0.7, lambda: Struct.trusted(s["gift"], [_text(rng, 2, 12), rng.random() < 0.5])
        )
        value = Struct.trusted(
            s["order"],
            [
                order_id,
                _timestamp(rng),
                customer,
                items,
                counters,
                history,
                shipments,
                gift,
                _double(rng),
            ],
        )
        yield Generated(Schema.STRING_SCHEMA, order_id, s["order"], value, ts)


def _schemaless(rng: random.Random, n: int) -> Iterator[Generated]:
    for ts in _stream_times(rng, n):
        user_id = rng.randrange(1, 5_000_000)
        event = rng.choice(EVENTS)
        value: dict[str, Any] = {
            "event": event,
            "event_id": _uuid(rng),
            "ts": ts - rng.randrange(5_000),
            "user": {
                "id": user_id,
                "name": _full_name(rng),
                "locale": rng.choice(LOCALES),
                "premium": rng.random() < 0.2,
            },
            "session": {
                "id": f"{rng.getrandbits(64):016x}",
                "device": {
                    "type": rng.choice(("mobile", "desktop", "tablet")),
                    "os": rng.choice(("iOS 17.4", "Android 14", "Windows 11", "macOS 14", "Linux")),
                    "screen": [
                        rng.choice((390, 412, 768, 1280, 1440, 1920)),
                        rng.choice((844, 915, 1024, 800, 900, 1080)),
                    ],
                },
            },
            "props": _event_props(rng, event),
            "score": _double(rng),
            "consent": rng.random() < 0.9,
        }
        # key sets vary: some keys only in some events, some present with a null
        if rng.random() < 0.6:
            value["campaign"] = (
                f"{rng.choice(('spring', 'summer', 'black-friday', 'ñoño', '夏'))}-{rng.randint(2019, 2025)}"
            )
        if rng.random() < 0.3:
            value["coupon"] = _maybe(rng, 0.5, lambda: f"SAVE{rng.randrange(5, 60)}")
        if rng.random() < 0.5:
            value["ab_bucket"] = rng.randrange(16)
        key = None if rng.random() < 0.5 else f"user-{user_id}"
        yield Generated(None, key, None, value, ts)


def _event_props(rng: random.Random, event: str) -> dict[str, Any]:
    props: dict[str, Any] = {
        "path": f"/{_ascii_slug(rng.choice(PRODUCT_NOUNS)) or 'p'}/{rng.randrange(10**5)}"
    }
    if event in ("add_to_cart", "remove_from_cart", "purchase"):
        props["sku"] = f"SKU-{rng.randrange(10**6):06d}"
        props["name"] = _product(rng)
        props["price"] = round(rng.uniform(0.5, 2_000), 2)
        props["qty"] = rng.randint(1, 9)
    if event == "search":
        props["query"] = _text(rng, 1, 4)
        props["results"] = rng.randrange(500)
    if rng.random() < 0.4:
        props["referrer"] = _maybe(rng, 0.3, lambda: f"https://{rng.choice(EMAIL_DOMAINS)}/")
    if rng.random() < 0.3:
        props["items"] = [rng.choice(PRODUCT_NOUNS) for _ in range(rng.randint(0, 4))]
    return props


def _debezium_schemas() -> tuple[Schema, Schema, Schema, Schema]:
    """(key, row, source, envelope): the schemas Debezium's PostgreSQL connector writes."""
    key = (
        SchemaBuilder.struct()
        .name("dbserver1.inventory.customers.Key")
        .field("id", Schema.INT32_SCHEMA)
        .build()
    )
    row = (
        SchemaBuilder.struct()
        .name("dbserver1.inventory.customers.Value")
        .optional()
        .field("id", Schema.INT32_SCHEMA)
        .field("first_name", Schema.STRING_SCHEMA)
        .field("last_name", Schema.STRING_SCHEMA)
        .field("email", Schema.STRING_SCHEMA)
        .field("phone", Schema.OPTIONAL_STRING_SCHEMA)
        .field(
            "balance",
            Decimal.builder(2).parameter("connect.decimal.precision", "12").build(),
        )
        .field("active", Schema.BOOLEAN_SCHEMA)
        .field(
            "created_at",
            SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build(),
        )
        .field(
            "birth_date",
            SchemaBuilder.int32().name("io.debezium.time.Date").version(1).optional().build(),
        )
        .build()
    )
    snapshot = (
        SchemaBuilder.string()
        .name("io.debezium.data.Enum")
        .version(1)
        .parameter("allowed", "true,last,false,incremental")
        .optional()
        .default_value("false")
        .build()
    )
    source = (
        SchemaBuilder.struct()
        .name("io.debezium.connector.postgresql.Source")
        .field("version", Schema.STRING_SCHEMA)
        .field("connector", Schema.STRING_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.INT64_SCHEMA)
        .field("snapshot", snapshot)
        .field("db", Schema.STRING_SCHEMA)
        .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
        .field("schema", Schema.STRING_SCHEMA)
        .field("table", Schema.STRING_SCHEMA)
        .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
        .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
        .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
        .build()
    )
    transaction = (
        SchemaBuilder.struct()
        .name("event.block")
        .version(1)
        .optional()
        .field("id", Schema.STRING_SCHEMA)
        .field("total_order", Schema.INT64_SCHEMA)
        .field("data_collection_order", Schema.INT64_SCHEMA)
        .build()
    )
    envelope = (
        SchemaBuilder.struct()
        .name("dbserver1.inventory.customers.Envelope")
        .version(1)
        .field("before", row)
        .field("after", row)
        .field("source", source)
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .field("transaction", transaction)
        .build()
    )
    return key, row, source, envelope


def _debezium(rng: random.Random, n: int) -> Iterator[Generated]:
    key_schema, row_schema, source_schema, envelope = _debezium_schemas()
    live: list[int] = []  # ids of the rows that exist, for updates and deletes
    next_id = 1001
    lsn = 24_023_128 + rng.randrange(10**6)
    tx = 555 + rng.randrange(1_000)
    snapshot_rows = max(1, n // 20)

    def new_row(row_id: int) -> Struct:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        return Struct.trusted(
            row_schema,
            [
                row_id,
                first,
                last,
                _email(rng, f"{first} {last}"),
                _maybe(rng, 0.15, lambda: f"+{rng.randint(1, 99)} {rng.randrange(10**9):09d}"),
                _decimal(rng, 9),
                rng.random() < 0.9,
                _instant_ms(rng) * 1_000 + rng.randrange(1_000),
                _maybe(rng, 0.2, lambda: rng.randrange(-10_000, 15_000)),
            ],
        )

    rows: dict[int, Struct] = {}
    tombstone_for: int | None = None
    for i, ts in enumerate(_stream_times(rng, n)):
        if tombstone_for is not None:  # the tombstone Debezium writes after a delete
            yield Generated(key_schema, Struct.trusted(key_schema, [tombstone_for]), None, None, ts)
            tombstone_for = None
            continue
        pick = rng.random()
        if i < snapshot_rows:
            op, before = "r", None
            row_id, next_id = next_id, next_id + 1
            after: Struct | None = new_row(row_id)
        elif pick < 0.35 or len(live) < 10:
            op, before = "c", None
            row_id, next_id = next_id, next_id + 1
            after = new_row(row_id)
        elif pick < 0.9:
            op = "u"
            row_id = rng.choice(live)
            before = rows[row_id]
            after = new_row(row_id)
        else:
            op = "d"
            row_id = live.pop(rng.randrange(len(live)))
            before, after = rows.pop(row_id), None
            tombstone_for = row_id
        if after is not None:
            if row_id not in rows:
                live.append(row_id)
            rows[row_id] = after
        lsn += rng.randrange(8, 4_096)
        tx += rng.random() < 0.3
        snapshot = ("last" if i == snapshot_rows - 1 else "true") if op == "r" else "false"
        source = Struct.trusted(
            source_schema,
            [
                "2.7.3.Final",
                "postgresql",
                "dbserver1",
                ts - rng.randrange(1, 300),
                snapshot,
                "inventory",
                None if rng.random() < 0.1 else f'["{lsn - rng.randrange(8, 512)}","{lsn}"]',
                "inventory",
                "customers",
                tx,
                lsn,
                None,
            ],
        )
        value = Struct.trusted(envelope, [before, after, source, op, ts, None])
        yield Generated(key_schema, Struct.trusted(key_schema, [row_id]), envelope, value, ts)


_GENERATORS: dict[str, Callable[[random.Random, int], Iterator[Generated]]] = {
    "narrow": _narrow,
    "customer": _customer,
    "wide": _wide,
    "nested": _nested,
    "schemaless": _schemaless,
    "debezium": _debezium,
}


def _shape(name: str) -> Shape:
    try:
        return SHAPES[name]
    except KeyError:
        raise ValueError(f"unknown shape {name!r}; one of {', '.join(SHAPES)}") from None


def records(shape: str, n: int, seed: int = 1) -> list[Generated]:
    """``n`` records of ``shape``, the same for the same seed."""
    _shape(shape)
    return list(_GENERATORS[shape](_Random(seed), n))


def encoded(shape: str, n: int, seed: int = 1) -> tuple[list[bytes | None], list[bytes | None]]:
    """The keys and values of ``records(shape, n, seed)`` as kconnect's JsonConverter writes
    them (``schemas.enable`` as the shape says); None for a null key or a tombstone."""
    return encode_records(shape, records(shape, n, seed))


def encode_records(
    shape: str, got: Sequence[Generated]
) -> tuple[list[bytes | None], list[bytes | None]]:
    """``encoded`` of records already generated (``records(shape, ...)``)."""
    from kconnect.converters.json_converter import JsonConverter

    schemas = "true" if _shape(shape).schemas_enable else "false"
    key_conv, value_conv = JsonConverter(), JsonConverter()
    key_conv.configure({"schemas.enable": schemas}, True)
    value_conv.configure({"schemas.enable": schemas}, False)
    keys: list[bytes | None] = []
    values: list[bytes | None] = []
    for s in range(0, len(got), 10_000):
        part = got[s : s + 10_000]
        keys.extend(key_conv.from_connect_batch("bench", [(g.key_schema, g.key) for g in part]))
        values.extend(
            value_conv.from_connect_batch("bench", [(g.value_schema, g.value) for g in part])
        )
    return keys, values


def write_records_file(
    path: Path,
    keys: Sequence[bytes | None],
    values: Sequence[bytes | None],
    timestamps: Sequence[int],
) -> None:
    """The binary records file ``bench/java/RecordBench.java`` reads: per record a big-endian
    int32 key length (-1: null) and the key, the same for the value, an int64 timestamp."""
    if not len(keys) == len(values) == len(timestamps):
        raise ValueError("keys, values and timestamps differ in length")
    pack_len, pack_ts = struct.Struct(">i").pack, struct.Struct(">q").pack
    with Path(path).open("wb") as f:
        for k, v, t in zip(keys, values, timestamps, strict=True):
            for b in (k, v):
                if b is None:
                    f.write(pack_len(-1))
                else:
                    f.write(pack_len(len(b)))
                    f.write(b)
            f.write(pack_ts(t))


def read_records_file(path: Path) -> tuple[list[bytes | None], list[bytes | None], list[int]]:
    """``(keys, values, timestamps)`` of a file ``write_records_file`` wrote."""
    data = Path(path).read_bytes()
    keys: list[bytes | None] = []
    values: list[bytes | None] = []
    stamps: list[int] = []
    at = 0
    unpack_len, unpack_ts = struct.Struct(">i").unpack_from, struct.Struct(">q").unpack_from
    while at < len(data):
        for out in (keys, values):
            (length,) = unpack_len(data, at)
            at += 4
            if length < 0:
                out.append(None)
            else:
                out.append(data[at : at + length])
                at += length
        stamps.append(unpack_ts(data, at)[0])
        at += 8
    return keys, values, stamps


# ------------------------------------------------------------------ fields, picked by type
#
# A "view" is what the configuration picker knows of a value: its top-level columns, each with
# a kind (a Connect type, or the logical type's name), whether it may be null, how often it is
# filled, and its children (a struct's fields, or the keys a schemaless map was seen with).
# The picker reads views, never shape names; a chain is planned by transforming the view as each
# stage would transform the records (a rename renames the column, a cast changes its kind ...).

_LOGICAL_KINDS = {
    Decimal.LOGICAL_NAME: "decimal",
    Date.LOGICAL_NAME: "date",
    Time.LOGICAL_NAME: "time",
    Timestamp.LOGICAL_NAME: "timestamp",
}
_SCALARS = ("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string")
_INTS = ("int64", "int32", "int16", "int8")


@dataclass(frozen=True)
class _Col:
    name: str
    kind: str  # int8..string, bytes, decimal, date, time, timestamp, struct, array, map
    optional: bool
    filled: float = 1.0  # share of the sampled records where it is not null
    children: tuple[_Col, ...] = ()
    # with schemas, a MAP somewhere below it, not inside an array: Flatten refuses it
    has_map: bool = False
    schema_name: str | None = None

    @property
    def epoch(self) -> bool:
        """An int64 that holds epoch milliseconds, as its name says (``ts``, ``ts_ms``, ``*_at``)."""
        n = self.name.lower()
        return self.kind == "int64" and (n in ("ts", "time") or n.endswith(("_ms", "_at", "_ts")))


@dataclass(frozen=True)
class _View:
    cols: tuple[_Col, ...]
    schemaful: bool
    name: str | None = None  # the struct schema's name


def _kind(schema: Schema) -> str:
    if schema.name in _LOGICAL_KINDS:
        return _LOGICAL_KINDS[schema.name]
    return schema.type.name.lower()


def _schema_cols(schema: Schema, samples: Sequence[Any]) -> tuple[_Col, ...]:
    cols = []
    for f in schema.fields:
        sub = [s.get(f.name) if s is not None else None for s in samples]
        filled = sum(v is not None for v in sub) / len(sub) if sub else 1.0
        children: tuple[_Col, ...] = ()
        if f.schema.type is Type.STRUCT:
            children = _schema_cols(f.schema, sub)
        has_map = f.schema.type is Type.MAP or any(c.has_map for c in children)
        cols.append(
            _Col(
                f.name, _kind(f.schema), f.schema.optional, filled, children, has_map, f.schema.name
            )
        )
    return tuple(cols)


_PY_KINDS = (
    (bool, "boolean"),
    (int, "int64"),
    (float, "float64"),
    (str, "string"),
    (dict, "map"),
    (list, "array"),
    (bytes, "bytes"),
)


def _map_cols(samples: Sequence[Any]) -> tuple[_Col, ...]:
    """Columns of schemaless maps: every key seen, in first-seen order, with the kind of its
    first non-null value (JSON numbers decode to int64 / float64, as Java's converter does)."""
    names: dict[str, None] = {}
    maps = [s for s in samples if isinstance(s, dict)]
    for m in maps:
        names.update(dict.fromkeys(m))
    cols = []
    for name in names:
        got = [m.get(name) for m in maps]
        first = next((v for v in got if v is not None), None)
        kind = next((k for t, k in _PY_KINDS if isinstance(first, t)), "string")
        filled = sum(v is not None for v in got) / len(got) if got else 1.0
        children = _map_cols(got) if kind == "map" else ()
        cols.append(_Col(name, kind, filled < 1.0, filled, children))
    return tuple(cols)


def _view(schema: Schema | None, samples: Sequence[Any]) -> _View | None:
    """The view of keys or values: a struct's fields, a schemaless map's keys; None when they
    are neither (a string key, no key)."""
    if schema is not None:
        if schema.type is not Type.STRUCT:
            return None
        return _View(_schema_cols(schema, samples), True, schema.name)
    if any(isinstance(s, dict) for s in samples):
        return _View(_map_cols(samples), False)
    return None


# -- the view after a stage --------------------------------------------------------------


def _renamed(v: _View, renames: dict[str, str], exclude: Iterable[str] = ()) -> _View:
    gone = set(exclude)
    cols = tuple(replace(c, name=renames.get(c.name, c.name)) for c in v.cols if c.name not in gone)
    return replace(v, cols=cols)


def _recast(v: _View, kinds: dict[str, str]) -> _View:
    cols = tuple(
        replace(c, kind=kinds[c.name], children=(), has_map=False) if c.name in kinds else c
        for c in v.cols
    )
    return replace(v, cols=cols)


def _flattened(v: _View, delimiter: str) -> _View:
    def walk(cols: Sequence[_Col], prefix: str, optional: bool) -> Iterator[_Col]:
        for c in cols:
            name = prefix + c.name
            nested = c.kind == "struct" if v.schemaful else c.kind == "map"
            if nested:
                yield from walk(c.children, name + delimiter, optional or c.optional)
            else:
                yield replace(c, name=name, optional=optional or c.optional)

    return replace(v, cols=tuple(walk(v.cols, "", False)))


def _extracted(v: _View, name: str) -> _View:
    col = _col(v, name)
    return replace(v, cols=col.children, name=None)


def _inserted(v: _View, added: dict[str, str]) -> _View:
    return replace(v, cols=v.cols + tuple(_Col(n, k, True) for n, k in added.items()))


def _col(v: _View, name: str) -> _Col:
    return next(c for c in v.cols if c.name == name)


# -- picking fields by type --------------------------------------------------------------


def _free(v: _View, avoid: set[str]) -> list[_Col]:
    return [c for c in v.cols if c.name not in avoid]


def _first(cols: Iterable[_Col], *kinds: str, epoch: bool | None = None) -> _Col | None:
    for kind in kinds:
        for c in cols:
            if c.kind == kind and (epoch is None or c.epoch == epoch):
                return c
    return None


def _unused(v: _View, base: str) -> str:
    names = {c.name for c in v.cols}
    while base in names:
        base += "_"
    return base


def _cast_spec(v: _View, avoid: set[str]) -> dict[str, str]:
    """``field:type`` pairs: the first int64 (not an epoch) -> string, the first float64 ->
    float32; without either, the first other integer -> string, else an epoch int64 -> string."""
    cols = _free(v, avoid)
    casts: dict[str, str] = {}
    whole = _first(cols, "int64", epoch=False)
    if whole is not None:
        casts[whole.name] = "string"
    double = _first(cols, "float64")
    if double is not None:
        casts[double.name] = "float32"
    if not casts:
        other = _first(cols, "int32", "int16", "int8") or _first(cols, "int64")
        if other is not None:
            casts[other.name] = "string"
    return casts


def _timestamp_col(v: _View, avoid: set[str]) -> _Col | None:
    cols = _free(v, avoid)
    return _first(cols, "timestamp") or _first(cols, "int64", epoch=True) or _first(cols, "date")


def _strings(v: _View, avoid: set[str], count: int) -> list[str]:
    found = [c.name for c in _free(v, avoid) if c.kind == "string"][:count]
    if not found:  # e.g. a key struct {id}: mask the first scalar instead
        first = next((c for c in _free(v, avoid) if c.kind in _SCALARS), None)
        found = [first.name] if first is not None else []
    return found


def _scalars(v: _View, avoid: set[str], count: int) -> list[str]:
    return [c.name for c in _free(v, avoid) if c.kind in _SCALARS and not c.epoch][:count]


def _extract_col(v: _View) -> _Col:
    """The main struct (or map): of two structs of one schema (a change event's ``before`` and
    ``after``) the later one, else the one most often filled; without one the first string,
    else the first column."""
    nested = [c for c in v.cols if c.kind in ("struct", "map") and c.children]
    named = [c.schema_name for c in nested if c.schema_name is not None]
    pairs = [c for c in nested if c.schema_name is not None and named.count(c.schema_name) > 1]
    if pairs:
        return pairs[-1]
    if nested:
        return max(nested, key=lambda c: c.filled)  # max keeps the first of equals
    return _first(v.cols, "string") or v.cols[0]


def _replace_settings(
    v: _View, avoid: set[str], also_exclude: Sequence[str] = ()
) -> dict[str, str]:
    """Rename the first free string column (else the first column); exclude the last free
    optional column, and ``also_exclude``."""
    cols = _free(v, avoid)
    target = _first(cols, "string") or (cols[0] if cols else None)
    settings: dict[str, str] = {}
    exclude = list(also_exclude)
    if target is not None:
        settings["renames"] = f"{target.name}:{_unused(v, target.name + '_renamed')}"
    optional = [c for c in cols if c.optional and c is not target and c.name not in exclude]
    if optional:
        exclude.insert(0, optional[-1].name)
    if exclude:
        settings["exclude"] = ",".join(exclude)
    return settings


def _map_fields(v: _View) -> list[str]:
    """Columns Flatten refuses with schemas (a MAP in them, outside an array)."""
    return [c.name for c in v.cols if c.has_map] if v.schemaful else []


# -- connector properties ----------------------------------------------------------------

_TRANSFORMS = "org.apache.kafka.connect.transforms."
_PREDICATES = {
    "isTombstone": ("RecordIsTombstone", {}),
    "onBench": ("TopicNameMatches", {"pattern": "bench.*"}),
    "hasPipeline": ("HasHeaderKey", {"name": "pipeline"}),
}
# Transformations that refuse a null value (Kafka's requireMap / requireStruct): on a shape
# with tombstones they run behind ``predicate=isTombstone, negate=true``, as users write them.
_REFUSE_TOMBSTONES = ("MaskField$Value", "ValueToKey", "HeaderFrom$Value")
_TS_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSS"


@dataclass
class _Stage:
    type: str  # Cast$Value, ValueToKey, ...
    settings: dict[str, str] = field(default_factory=dict)
    predicate: str | None = None
    negate: bool = False


def _props(stages: Sequence[tuple[str, _Stage]]) -> dict[str, str]:
    props = {"transforms": ",".join(alias for alias, _ in stages)}
    used: list[str] = []
    for alias, s in stages:
        props[f"transforms.{alias}.type"] = _TRANSFORMS + s.type
        for k, val in s.settings.items():
            props[f"transforms.{alias}.{k}"] = val
        if s.predicate is not None:
            props[f"transforms.{alias}.predicate"] = s.predicate
            if s.negate:
                props[f"transforms.{alias}.negate"] = "true"
            if s.predicate not in used:
                used.append(s.predicate)
    if used:
        props["predicates"] = ",".join(used)
        for p in used:
            kind, settings = _PREDICATES[p]
            props[f"predicates.{p}.type"] = f"{_TRANSFORMS}predicates.{kind}"
            for k, val in settings.items():
                props[f"predicates.{p}.{k}"] = val
    return props


@dataclass(frozen=True)
class _Profile:
    key: _View | None
    value: _View | None
    tombstones: bool


def _profile(shape: str, n: int = 400, seed: int = 1) -> _Profile:
    """What the picker knows of a shape: views of its keys and values from ``n`` records."""
    got = records(shape, n, seed)
    values = [g for g in got if g.value is not None]
    key_schema = next((g.key_schema for g in got if g.key_schema is not None), None)
    return _Profile(
        _view(key_schema, [g.key for g in got]),
        _view(values[0].value_schema if values else None, [g.value for g in values]),
        len(values) < len(got),
    )


def _guard(stage: _Stage, tombstones: bool) -> _Stage:
    if tombstones and stage.type in _REFUSE_TOMBSTONES:
        stage.predicate, stage.negate = "isTombstone", True
    return stage


def _single_smts(v: _View, side: str) -> dict[str, list[_Stage]]:
    """Each transformation with a ``side`` ("Key" or "Value") variant, configured for the view:
    name -> stages (one stage, or Flatten behind the ReplaceField it needs)."""
    t = f"${side}"
    out: dict[str, list[_Stage]] = {}
    casts = _cast_spec(v, set())
    if casts:
        out["Cast" + t] = [
            _Stage("Cast" + t, {"spec": ",".join(f"{k}:{t_}" for k, t_ in casts.items())})
        ]
    out["ExtractField" + t] = [_Stage("ExtractField" + t, {"field": _extract_col(v).name})]
    maps = _map_fields(v)
    flatten = [_Stage("Flatten" + t)]
    if maps:  # Flatten refuses MAPs with schemas, as Kafka's does: drop those fields first
        flatten.insert(0, _Stage("ReplaceField" + t, {"exclude": ",".join(maps)}))
    out["Flatten" + t] = flatten
    first = _scalars(v, set(), 1)
    if first:
        out["HeaderFrom" + t] = [
            _Stage(
                "HeaderFrom" + t,
                {"fields": first[0], "headers": f"{side.lower()}_{first[0]}", "operation": "copy"},
            )
        ]
    out["HoistField" + t] = [_Stage("HoistField" + t, {"field": _unused(v, "payload")})]
    out["InsertField" + t] = [
        _Stage(
            "InsertField" + t,
            {
                "topic.field": _unused(v, "kafka_topic"),
                "partition.field": _unused(v, "kafka_partition"),
                "offset.field": _unused(v, "kafka_offset"),
                "timestamp.field": _unused(v, "kafka_timestamp"),
            },
        )
    ]
    masked = _strings(v, set(), 2)
    if masked:
        out["MaskField" + t] = [_Stage("MaskField" + t, {"fields": ",".join(masked)})]
    out["ReplaceField" + t] = [_Stage("ReplaceField" + t, _replace_settings(v, set()))]
    if v.schemaful:  # SetSchemaMetadata requires a schema
        out["SetSchemaMetadata" + t] = [
            _Stage(
                "SetSchemaMetadata" + t,
                {"schema.name": f"{v.name or 'bench'}.v2", "schema.version": "2"},
            )
        ]
    ts = _timestamp_col(v, set())
    if ts is not None:
        out["TimestampConverter" + t] = [
            _Stage(
                "TimestampConverter" + t,
                {"field": ts.name, "target.type": "string", "format": _TS_FORMAT},
            )
        ]
    return out


def smt_configs(shape: str) -> dict[str, dict[str, str]]:
    """For each built-in transformation, one configuration valid on every record of ``shape``
    (connector properties, alias ``t``); ``$Value`` variants, then ``$Key`` variants where the
    key is a struct. Fields are picked from the shape's schema (or maps) by type."""
    p = _profile(shape)
    out: dict[str, dict[str, str]] = {}
    stages: dict[str, list[_Stage]] = {}
    if p.value is not None:
        stages.update(_single_smts(p.value, "Value"))
        pair = _scalars(p.value, set(), 2)
        if pair:
            stages["ValueToKey"] = [_Stage("ValueToKey", {"fields": ",".join(pair)})]
    stages["DropHeaders"] = [_Stage("DropHeaders", {"headers": "trace_id,pipeline"})]
    stages["Filter"] = [_Stage("Filter", predicate="isTombstone")]
    stages["InsertHeader"] = [
        _Stage("InsertHeader", {"header": "pipeline", "value.literal": "bench"})
    ]
    stages["RegexRouter"] = [_Stage("RegexRouter", {"regex": "(.*)", "replacement": "$1-routed"})]
    stages["TimestampRouter"] = [
        _Stage(
            "TimestampRouter",
            {"topic.format": "${topic}-${timestamp}", "timestamp.format": "yyyyMMdd"},
        )
    ]
    for name in sorted(stages):
        out[name] = _props(
            [(f"t{i}" if i else "t", _guard(s, p.tombstones)) for i, s in enumerate(stages[name])]
        )
    if p.key is not None and p.key.schemaful:
        for name, key_stages in sorted(_single_smts(p.key, "Key").items()):
            out[name] = _props([(f"t{i}" if i else "t", s) for i, s in enumerate(key_stages)])
    return out


def _cleanup(v: _View, tombstones: bool) -> list[tuple[str, _Stage]]:
    """ReplaceField (rename + exclude), Cast, TimestampConverter, MaskField, Flatten,
    InsertField (partition, offset): the issue's sink chain, on any view."""
    ts = _timestamp_col(v, set())
    avoid = {ts.name} if ts is not None else set()
    replace_settings = _replace_settings(v, avoid, _map_fields(v))
    renamed_from, _, renamed_to = replace_settings.get("renames", "").partition(":")
    excluded = [e for e in replace_settings.get("exclude", "").split(",") if e]
    avoid |= {renamed_from, renamed_to, *excluded}
    stages: list[tuple[str, _Stage]] = [("replace", _Stage("ReplaceField$Value", replace_settings))]
    v = _renamed(v, {renamed_from: renamed_to} if renamed_from else {}, excluded)
    casts = _cast_spec(v, avoid)
    if casts:
        stages.append(
            ("cast", _Stage("Cast$Value", {"spec": ",".join(f"{k}:{t}" for k, t in casts.items())}))
        )
        avoid |= set(casts)
        v = _recast(v, casts)
    if ts is not None:
        stages.append(
            (
                "ts",
                _Stage(
                    "TimestampConverter$Value",
                    {"field": ts.name, "target.type": "string", "format": _TS_FORMAT},
                ),
            )
        )
        v = _recast(v, {ts.name: "string"})
    masked = _strings(v, avoid, 1)
    if masked:
        stages.append(
            ("mask", _guard(_Stage("MaskField$Value", {"fields": masked[0]}), tombstones))
        )
    stages.append(("flatten", _Stage("Flatten$Value")))
    v = _flattened(v, ".")
    stages.append(
        (
            "insert",
            _Stage(
                "InsertField$Value",
                {
                    "partition.field": _unused(v, "kafka_partition"),
                    "offset.field": _unused(v, "kafka_offset"),
                },
            ),
        )
    )
    return stages


def _routing(v: _View) -> list[tuple[str, _Stage]]:
    """ValueToKey + ExtractField$Key and HeaderFrom (behind isTombstone/negate: they refuse a
    tombstone), RegexRouter (only topics matching onBench), InsertHeader, DropHeaders (when
    hasPipeline)."""
    picked = _scalars(v, set(), 2)
    key_field, header_field = picked[0], picked[-1]

    def unless_tombstone(stage: _Stage) -> _Stage:
        stage.predicate, stage.negate = "isTombstone", True
        return stage

    copy = {"fields": header_field, "headers": f"h_{header_field}", "operation": "copy"}
    route = {"regex": "bench(.*)", "replacement": "customers$1-by-key"}
    return [
        ("v2k", unless_tombstone(_Stage("ValueToKey", {"fields": key_field}))),
        ("key", unless_tombstone(_Stage("ExtractField$Key", {"field": key_field}))),
        ("route", _Stage("RegexRouter", route, predicate="onBench")),
        ("tag", _Stage("InsertHeader", {"header": "pipeline", "value.literal": "routing"})),
        ("copy", unless_tombstone(_Stage("HeaderFrom$Value", copy))),
        ("untag", _Stage("DropHeaders", {"headers": "pipeline"}, predicate="hasPipeline")),
    ]


def _unwrap(v: _View) -> list[tuple[str, _Stage]]:
    """ExtractField$Value of the main struct (``after`` of a change event), Flatten, ReplaceField,
    and with schemas SetSchemaMetadata: what users run to turn an envelope into a table row."""
    stages: list[tuple[str, _Stage]] = []
    nested = [c for c in v.cols if c.kind in ("struct", "map") and c.children]
    if nested:
        col = _extract_col(v)
        stages.append(("extract", _Stage("ExtractField$Value", {"field": col.name})))
        v = _extracted(v, col.name)
    maps = _map_fields(v)
    if maps:
        stages.append(("drop", _Stage("ReplaceField$Value", {"exclude": ",".join(maps)})))
        v = _renamed(v, {}, maps)
    stages.append(("flatten", _Stage("Flatten$Value", {"delimiter": "_"})))
    v = _flattened(v, "_")
    stages.append(("rename", _Stage("ReplaceField$Value", _replace_settings(v, set()))))
    if v.schemaful:
        stages.append(
            (
                "schema",
                _Stage(
                    "SetSchemaMetadata$Value", {"schema.name": "bench.Row", "schema.version": "1"}
                ),
            )
        )
    return stages


def chains(shape: str) -> dict[str, dict[str, str]]:
    """Three typical chains on ``shape`` as connector properties: ``cleanup`` (SINK_CHAIN's six
    kinds), ``routing`` (key from the value, a new topic, headers, predicates) and ``unwrap``
    (extract the main struct, flatten, rename)."""
    p = _profile(shape)
    if p.value is None:
        raise ValueError(f"{shape}: the chains need struct or map values")
    return {
        "cleanup": _props(_cleanup(p.value, p.tombstones)),
        "routing": _props(_routing(p.value)),
        "unwrap": _props(_unwrap(p.value)),
    }


def _source_chain() -> dict[str, str]:
    """FileStreamSource lines (STRING values, record timestamp set, no partition or offset):
    HoistField -> InsertField (topic, a static source id, the record timestamp) -> Cast (the
    static id, a string, to int32) -> TimestampConverter (the inserted Timestamp to text)."""
    return _props(
        [
            ("hoist", _Stage("HoistField$Value", {"field": "line"})),
            (
                "insert",
                _Stage(
                    "InsertField$Value",
                    {
                        "topic.field": "topic",
                        "static.field": "source_id",
                        "static.value": "42",
                        "timestamp.field": "ingested_at",
                    },
                ),
            ),
            ("cast", _Stage("Cast$Value", {"spec": "source_id:int32"})),
            (
                "ts",
                _Stage(
                    "TimestampConverter$Value",
                    {"field": "ingested_at", "target.type": "string", "format": _TS_FORMAT},
                ),
            ),
        ]
    )


SINK_CHAIN: dict[str, str] = chains("customer")["cleanup"]
"""The six SMTs of issue #29 on the customer shape: ReplaceField$Value (rename + exclude),
Cast$Value (int64 -> string, float64 -> float32), TimestampConverter$Value (Timestamp ->
``yyyy-MM-dd'T'HH:mm:ss.SSS``), MaskField$Value, Flatten$Value, InsertField$Value (partition,
offset)."""

SOURCE_CHAIN: dict[str, str] = _source_chain()
