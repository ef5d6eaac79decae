"""Places a forecast can be asked for, and a built-in table of Japan's prefectures and capitals.

The table answers the common questions (東京, 大阪, Sapporo, 神奈川県…) without a geocoding
request; a prefecture resolves to the point of its capital city.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from bot.i18n import Language
from bot.text.analysis import normalize

JAPAN_TIMEZONE = "Asia/Tokyo"


class Place(BaseModel):
    """A resolved place: the name to show, its coordinates and its time zone."""

    model_config = ConfigDict(frozen=True)

    name: str
    latitude: float
    longitude: float
    timezone: str
    region: str | None = None
    country: str | None = None
    name_en: str | None = None
    region_en: str | None = None

    def label(self, language: Language = "ja") -> str:
        """The name with its region when that adds something, e.g. 横浜（神奈川県）, or
        Yokohama (Kanagawa) in English (a place known by one name only keeps it)."""
        if language == "en" and self.name_en:
            if self.region_en and self.region_en != self.name_en:
                return f"{self.name_en} ({self.region_en})"
            return self.name_en
        if self.region and not self.region.startswith(self.name):
            return f"{self.name}（{self.region}）"
        return self.name


# (prefecture, capital, prefecture in English, capital in English, latitude, longitude):
# the coordinates are those of the capital's city hall, to about a kilometre.
_PREFECTURES: tuple[tuple[str, str, str, str, float, float], ...] = (
    ("北海道", "札幌", "hokkaido", "sapporo", 43.0642, 141.3469),
    ("青森県", "青森", "aomori", "aomori", 40.8244, 140.7400),
    ("岩手県", "盛岡", "iwate", "morioka", 39.7036, 141.1527),
    ("宮城県", "仙台", "miyagi", "sendai", 38.2682, 140.8694),
    ("秋田県", "秋田", "akita", "akita", 39.7186, 140.1024),
    ("山形県", "山形", "yamagata", "yamagata", 38.2404, 140.3633),
    ("福島県", "福島", "fukushima", "fukushima", 37.7500, 140.4678),
    ("茨城県", "水戸", "ibaraki", "mito", 36.3418, 140.4468),
    ("栃木県", "宇都宮", "tochigi", "utsunomiya", 36.5657, 139.8836),
    ("群馬県", "前橋", "gunma", "maebashi", 36.3907, 139.0604),
    ("埼玉県", "さいたま", "saitama", "saitama", 35.8569, 139.6489),
    ("千葉県", "千葉", "chiba", "chiba", 35.6051, 140.1233),
    ("東京都", "東京", "tokyo", "tokyo", 35.6895, 139.6917),
    ("神奈川県", "横浜", "kanagawa", "yokohama", 35.4478, 139.6425),
    ("新潟県", "新潟", "niigata", "niigata", 37.9026, 139.0232),
    ("富山県", "富山", "toyama", "toyama", 36.6953, 137.2113),
    ("石川県", "金沢", "ishikawa", "kanazawa", 36.5947, 136.6256),
    ("福井県", "福井", "fukui", "fukui", 36.0652, 136.2216),
    ("山梨県", "甲府", "yamanashi", "kofu", 35.6642, 138.5684),
    ("長野県", "長野", "nagano", "nagano", 36.6513, 138.1810),
    ("岐阜県", "岐阜", "gifu", "gifu", 35.3912, 136.7223),
    ("静岡県", "静岡", "shizuoka", "shizuoka", 34.9769, 138.3831),
    ("愛知県", "名古屋", "aichi", "nagoya", 35.1815, 136.9066),
    ("三重県", "津", "mie", "tsu", 34.7303, 136.5086),
    ("滋賀県", "大津", "shiga", "otsu", 35.0045, 135.8686),
    ("京都府", "京都", "kyoto", "kyoto", 35.0116, 135.7681),
    ("大阪府", "大阪", "osaka", "osaka", 34.6937, 135.5023),
    ("兵庫県", "神戸", "hyogo", "kobe", 34.6901, 135.1955),
    ("奈良県", "奈良", "nara", "nara", 34.6851, 135.8048),
    ("和歌山県", "和歌山", "wakayama", "wakayama", 34.2260, 135.1675),
    ("鳥取県", "鳥取", "tottori", "tottori", 35.5011, 134.2351),
    ("島根県", "松江", "shimane", "matsue", 35.4723, 133.0505),
    ("岡山県", "岡山", "okayama", "okayama", 34.6618, 133.9344),
    ("広島県", "広島", "hiroshima", "hiroshima", 34.3853, 132.4553),
    ("山口県", "山口", "yamaguchi", "yamaguchi", 34.1860, 131.4706),
    ("徳島県", "徳島", "tokushima", "tokushima", 34.0658, 134.5593),
    ("香川県", "高松", "kagawa", "takamatsu", 34.3401, 134.0434),
    ("愛媛県", "松山", "ehime", "matsuyama", 33.8416, 132.7657),
    ("高知県", "高知", "kochi", "kochi", 33.5597, 133.5311),
    ("福岡県", "福岡", "fukuoka", "fukuoka", 33.5904, 130.4017),
    ("佐賀県", "佐賀", "saga", "saga", 33.2494, 130.2988),
    ("長崎県", "長崎", "nagasaki", "nagasaki", 32.7503, 129.8779),
    ("熊本県", "熊本", "kumamoto", "kumamoto", 32.8032, 130.7079),
    ("大分県", "大分", "oita", "oita", 33.2382, 131.6126),
    ("宮崎県", "宮崎", "miyazaki", "miyazaki", 31.9111, 131.4239),
    ("鹿児島県", "鹿児島", "kagoshima", "kagoshima", 31.5966, 130.5571),
    ("沖縄県", "那覇", "okinawa", "naha", 26.2124, 127.6809),
)

# Administrative suffixes people add or leave out: 大阪府 / 大阪 / 大阪市, Osaka-fu / Osaka City.
_SUFFIX = re.compile(r"(?:都|府|県|市|-to|-fu|-ken|-shi| prefecture| city)$")


def _build_aliases() -> dict[str, Place]:
    aliases: dict[str, Place] = {}
    for prefecture, capital, prefecture_en, capital_en, latitude, longitude in _PREFECTURES:
        place = Place(
            name=capital,
            latitude=latitude,
            longitude=longitude,
            timezone=JAPAN_TIMEZONE,
            region=prefecture,
            country="日本",
            name_en=capital_en.title(),
            region_en=prefecture_en.title(),
        )
        for key in (prefecture, strip_suffix(prefecture), capital, prefecture_en, capital_en):
            aliases.setdefault(key, place)
    return aliases


def strip_suffix(name: str) -> str:
    """The name without one administrative suffix (県, 市, -shi, " prefecture"…)."""
    stripped = _SUFFIX.sub("", name).strip()
    return stripped or name


def place_key(name: str) -> str:
    """Normalised lookup key: NFKC, lower case, inner runs of spaces collapsed."""
    return re.sub(r"\s+", " ", normalize(name)).strip()


_ALIASES = _build_aliases()


def known_place(name: str) -> Place | None:
    """A place from the built-in table (prefectures and their capitals), or None."""
    key = place_key(name)
    # Try the exact name first: stripping 都 from 京都 would leave 京.
    return _ALIASES.get(key) or _ALIASES.get(strip_suffix(key))
