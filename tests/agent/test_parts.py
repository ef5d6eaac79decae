"""A user turn is flattened for the model: quotes, text, files and only this run's images."""

from __future__ import annotations

from bot.agent.conversation import messages as m
from bot.agent.conversation.parts import FilePart, QuotePart


def test_an_image_of_the_current_run_becomes_an_image_part_after_the_text() -> None:
    message = m.UserMessage(
        text="これ何？",
        author_name="Hana",
        files=[FilePart(name="cat.png", kind="image", image_key="7")],
    )

    [converted] = m.to_llm([message], {"7": "data:image/png;base64,AAAA"})

    assert converted["content"] == [
        {
            "type": "text",
            "text": 'Hana: これ何？\n\n<file name="cat.png">\n(image 1 attached below)\n</file>',
        },
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]


def test_an_image_from_an_earlier_run_is_only_a_placeholder() -> None:
    message = m.UserMessage(
        text="これ何？", files=[FilePart(name="cat.png", kind="image", image_key="7")]
    )

    assert m.to_llm([message]) == [
        {"role": "user", "content": 'これ何？\n\n<file name="cat.png">\n(an image)\n</file>'}
    ]


def test_a_quote_comes_before_the_members_words_and_a_deleted_one_says_so() -> None:
    message = m.UserMessage(
        text="どう思う？",
        quotes=[
            QuotePart(relation="thread_starter", message_id=1, author_name="Taro", text="BBQ"),
            QuotePart(relation="reply", message_id=2, missing="deleted"),
        ],
    )

    [converted] = m.to_llm([message])

    assert converted["content"] == (
        '<thread_starter by="Taro">\nBBQ\n</thread_starter>\n\n'
        "<replied_to>\n(that message was deleted, so its content is unknown)\n</replied_to>"
        "\n\nどう思う？"
    )


def test_stored_messages_without_parts_still_load() -> None:
    loaded = m.load('{"kind": "user", "text": "hi", "author_name": "Hana"}')

    assert isinstance(loaded, m.UserMessage) and loaded.files == [] and loaded.quotes == []
