"""Word spacing comes from the written sentence, never from the voice: what both framework
integrations hand their transcripts (kokoro_stream.spacing)."""

from __future__ import annotations

from kokoro_stream.spacing import spaced_words


def test_an_english_sentence_keeps_its_spaces_whatever_the_voice() -> None:
    words = ["Your", "order", "shipped", "today."]
    assert spaced_words("Your order shipped today.", words, continues=False) == [
        "Your",
        " order",
        " shipped",
        " today.",
    ]


def test_a_japanese_sentence_stays_unspaced() -> None:
    words = ["今日は", "晴れです。"]
    assert spaced_words("今日は晴れです。", words, continues=True) == words


def test_a_later_sentence_of_a_turn_starts_with_a_space_in_a_spaced_script() -> None:
    assert spaced_words("Bye.", ["Bye."], continues=True) == [" Bye."]
    assert spaced_words("Bye.", ["Bye."], continues=False) == ["Bye."]


def test_mixed_text_follows_what_is_written() -> None:
    sentence = "東京でGoogle Mapsを開く。"
    words = ["東京で", "Google", "Maps", "を", "開く。"]
    assert spaced_words(sentence, words, continues=False) == [
        "東京で",
        "Google",
        " Maps",
        "を",
        "開く。",
    ]


def test_a_word_not_found_as_written_falls_back_to_its_script() -> None:
    assert spaced_words("3.14 apples.", ["three", "apples."], continues=False) == [
        "three",
        " apples.",
    ]
    assert spaced_words("x", ["a", "b", "猫"], continues=False) == ["a", " b", "猫"]
