"""Vocabulary of the search: words too common to search by, and words that mean the same.

Synonyms let 「サーバーに入るには」 find 参加方法: each group is a set of interchangeable words in
Japanese and English, and a question containing one also searches the others at a lower weight
(at full weight when the files never use the word asked). Keep groups small and unambiguous: a
loose group drags unrelated sections into every answer.
"""

from __future__ import annotations

# Stop words change what is indexed: bump ANALYZER_VERSION (terms.py) after editing them, so
# cached analyses are redone. Synonyms apply to questions only and need no bump.

# Function words of English questions and texts; they only slow queries down.
_ENGLISH = """
a about after again all also am an and another any are as at be because been before being both
but by can could did do does doing each every few for from further get got had happen has have
he her here him his how i if in into is it its itself just let like me more most much must my
need no nor not now of off on once only or other our out over own please same she should so
some such tell than that the their them then there these they this those to too us very want
was we were what when where which while who whom why will with would you your
"""
# Verbs and words janome keeps as content words that appear in nearly every Japanese text or
# question (する, ある, 教える, 仕方 …) without saying what it is about.
_JAPANESE = """
する ある いる なる できる いう おる くる ない れる られる せる やる みる 教える 知る わかる 分かる
仕方 やり方
"""

ENGLISH_STOP_WORDS = frozenset(_ENGLISH.split())
JAPANESE_STOP_WORDS = frozenset(_JAPANESE.split())

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("参加", "入る", "加入", "入会", "join"),
    ("退出", "抜ける", "退会", "脱退", "leave"),
    ("通報", "報告", "report"),
    ("スパム", "荒らし", "迷惑", "spam"),
    ("ルール", "規則", "規約", "rule", "guideline"),
    ("権限", "ロール", "役職", "role", "permission"),
    ("招待", "invite", "invitation"),
    ("追放", "キック", "kick"),
    ("禁止", "ban"),
    ("イベント", "催し", "event"),
    ("質問", "問い合わせ", "相談", "question"),
    ("管理者", "運営", "モデレーター", "admin", "moderator"),
    ("設定", "setting", "config"),
    ("ニックネーム", "あだ名", "nickname"),
    ("削除", "消す", "delete", "remove"),
    ("変更", "変える", "change"),
    ("料金", "値段", "費用", "price", "cost", "fee"),
    ("連絡", "contact"),
    ("画像", "写真", "image", "picture", "photo"),
    ("ボイス", "通話", "voice"),
    ("ヘルプ", "助ける", "手伝う", "help"),
    ("自己紹介", "introduction", "introduce"),
    ("サーバー", "server"),
    ("チャンネル", "channel"),
    ("メッセージ", "message"),
    ("通知", "notification"),
)
