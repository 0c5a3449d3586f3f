"""Spanish, French, Italian and Brazilian Portuguese: ranges and spans ("3–5 %", "9h–17h30",
"lun.–vie."), lists of abbreviated days, abbreviated dates, twelve-hour times, telephone
numbers, units and abbreviations, said as a native reader says them, through the server's
real front end (each language's voice and espeak-ng), and what these rules must not claim."""

from __future__ import annotations

import re

import pytest

from devkit.speech_corpus import LANGUAGE_FILES, load_frontend

VOICES = {language: LANGUAGE_FILES[language][1] for language in ("es", "fr-fr", "it", "pt-br")}


@pytest.fixture(scope="module")
def frontend():
    return load_frontend()


def _normalized(frontend, language: str, text: str) -> str:
    result = frontend(text, VOICES[language])
    assert result.language == language
    # Captions keep the written form: the words join back to the sentence as written.
    assert "".join(w.text for w in result.words).replace(" ", "") == text.replace(" ", "")
    return result.normalized


SAID = [
    # Ranges of amounts: the joiner the preposition before them asks for.
    (
        "es",
        "Se espera una subida del 3–5 % anual.",
        "Se espera una subida del tres al cinco por ciento anual.",
    ),
    ("es", "Subirá entre 3–5 %.", "Subirá entre tres y cinco por ciento."),
    ("es", "Cuesta 2–3 mil €.", "Cuesta dos mil a tres mil euros."),
    (
        "es",
        "Una ronda de 1,2–1,5 M€.",
        "Una ronda de uno coma dos a uno coma cinco millones de euros.",
    ),
    ("es", "Hay 21–31 personas.", "Hay veintiuna a treinta y una personas."),
    ("es", "Ganó 3–1 la final.", "Ganó tres a uno la final."),
    ("es", "Vale 2,5 mil €.", "Vale dos mil quinientos euros."),
    ("fr-fr", "Comptez 2–3 k€.", "Comptez deux mille à trois mille euros."),
    ("fr-fr", "Entre 3–5 % de hausse.", "Entre trois et cinq pour cent de hausse."),
    ("it", "Costa 800–1.200 €.", "Costa da ottocento a milleduecento euro."),
    ("it", "Salirà del 3–5 %.", "Salirà del tre-cinque per cento."),
    ("it", "Servono 2–3 mila €.", "Servono da duemila a tremila euro."),
    ("pt-br", "Sai por R$ 2 mil–3 mil.", "Sai por dois mil a três mil reais."),
    ("pt-br", "Custa R$ 10–R$ 20.", "Custa dez a vinte reais."),
    ("pt-br", "Deve ficar em 3–5%.", "Deve ficar em três a cinco por cento."),
    # Spans of clock times, and bare hours after a word about opening hours.
    ("es", "Horario: 9:00–14:00.", "Horario: de nueve a catorce."),
    ("es", "Abrimos de 9:00 a 14:00.", "Abrimos de nueve a catorce."),
    ("fr-fr", "Ouvert 9h–17h30.", "Ouvert de neuf heures à dix-sept heures trente."),
    ("it", "Orario continuato 9–19.", "Orario continuato dalle nove alle diciannove."),
    ("it", "Aperto 1–3.", "Aperto dall'una alle tre."),
    ("pt-br", "Atendimento: 8h–17h.", "Atendimento: das oito horas às dezessete horas."),
    # Twelve-hour times: the part of the day the hour is in.
    ("es", "Llega a las 10:30 a. m.", "Llega a las diez y media de la mañana."),
    ("es", "Sale a las 7 p. m. hoy.", "Sale a las siete de la tarde hoy."),
    ("es", "Cenamos a las 9 pm.", "Cenamos a las nueve de la noche."),
    ("es", "Aterriza a las 2 a.m.", "Aterriza a las dos de la madrugada."),
    # Days and months: ranges, lists, a day with an abbreviated month.
    ("es", "Abrimos lun.–vie.", "Abrimos de lunes a viernes."),
    ("es", "Recogida: L–V.", "Recogida: de lunes a viernes."),
    ("es", "Yoga: L, X y V.", "Yoga: lunes, miércoles y viernes."),
    ("es", "Llega el 3 dic.", "Llega el tres de diciembre."),
    ("fr-fr", "Il répond lun.–ven.", "Il répond du lundi au vendredi."),
    ("fr-fr", "Fermé avr.–juin.", "Fermé d'avril à juin."),
    ("fr-fr", "Fermé sam. et dim.", "Fermé samedi et dimanche."),
    ("fr-fr", "Limite : 15 sept. 2025.", "Limite : quinze septembre deux mille vingt-cinq."),
    ("it", "Vale gen.–mar.", "Vale da gennaio a marzo."),
    ("it", "Yoga mar. e gio.", "Yoga martedì e giovedì."),
    ("it", "Aperti lun–ven.", "Aperti dal lunedì al venerdì."),
    ("pt-br", "Funcionamos seg.–sex.", "Funcionamos de segunda a sexta."),
    ("pt-br", "Aulas às ter. e qui.", "Aulas às terças e quintas."),
    ("pt-br", "Plantão ter. e qui.", "Plantão terça e quinta."),
    ("pt-br", "Vence em 10 out. 2025.", "Vence em dez de outubro de dois mil e vinte e cinco."),
    # A time written with a period, after a word that announces a time.
    ("it", "Inizia alle 10.30.", "Inizia alle dieci e mezza."),
    # Units, abbreviations, currencies named by a code.
    ("es", "Subió 25 pb.", "Subió veinticinco puntos básicos."),
    ("es", "Bajó 1 pb.", "Bajó un punto básico."),
    ("fr-fr", "Relevé de 25 pb.", "Relevé de vingt-cinq points de base."),
    ("it", "Tagliati di 25 pb.", "Tagliati di venticinque punti base."),
    ("pt-br", "Subiu 25 pb.", "Subiu vinte e cinco pontos-base."),
    ("es", "Dura aprox. 45 minutos.", "Dura aproximadamente cuarenta y cinco minutos."),
    ("es", "Está en la Avda. Sol, IVA incl.", "Está en la Avenida Sol, IVA incluido."),
    ("fr-fr", "Au n° 8, env. 2 heures.", "Au numéro huit, environ deux heures."),
    ("it", "Dura ca. 3 ore, a pag. 12.", "Dura circa tre ore, a pagina dodici."),
    ("pt-br", "Leve algo, p. ex. o passaporte.", "Leve algo, por exemplo, o passaporte."),
    ("pt-br", "Leve algo, p. ex., o passaporte.", "Leve algo, por exemplo, o passaporte."),
    ("es", "Un taco cuesta $25 MXN.", "Un taco cuesta veinticinco pesos."),
    ("fr-fr", "Il coûte 85 $ CA.", "Il coûte quatre-vingt-cinq dollars canadiens."),
    # Telephone numbers: group by group after a word naming a telephone.
    (
        "es",
        "Reservas: tel. 912 345 678.",
        "Reservas: teléfono nueve uno dos, tres cuatro cinco, seis siete ocho.",
    ),
    (
        "fr-fr",
        "Appelez le 01 23 45 67 89.",
        "Appelez le zéro un, vingt-trois, quarante-cinq, soixante-sept, quatre-vingt-neuf.",
    ),
    (
        "it",
        "Info: tel. 06 1234 5678.",
        "Info: telefono zero sei, uno due tre quattro, cinque sei sette otto.",
    ),
    (
        "pt-br",
        "Ligue: tel. (21) 2345-7890.",
        "Ligue: telefone dois um, dois três quatro cinco, sete oito nove zero.",
    ),
    # Roman ordinals (French), millions in Italian, feminine thousands under masculine millions.
    ("fr-fr", "Au XXIe siècle.", "Au vingt et unième siècle."),
    ("it", "Ha 2.800.000 abitanti.", "Ha due milioni ottocentomila abitanti."),
    ("es", "Hay 2.300.200 estrellas.", "Hay dos millones trescientas mil doscientas estrellas."),
]


@pytest.mark.parametrize(("language", "written", "said"), SAID, ids=[c[1] for c in SAID])
def test_ranges_days_and_abbreviations_are_said_as_a_native_reader_says_them(
    frontend, language, written, said
):
    assert _normalized(frontend, language, written) == said


# What the rules must not claim: left as they were, or read as something else.
NOT_CLAIMED = [
    ("es", "Tallas S, M y L disponibles.", "S, M y L"),  # sizes, not in the week's order
    ("es", "Fuimos al mar.", "mar."),  # a word, not an abbreviated Tuesday or March
    ("es", "Capítulos I y V.", "I y V"),  # not day letters
    ("pt-br", "Vou ter e qui.", "ter e qui"),  # verbs, no abbreviation periods
    ("it", "Vado al mar.", "mar."),
    ("fr-fr", "Ce matin, De Gaulle et Louis XIV.", "Ce matin, De Gaulle et Louis XIV"),
    ("fr-fr", "Le livre.", "Le livre"),
]


@pytest.mark.parametrize(
    ("language", "written", "kept"), NOT_CLAIMED, ids=[c[1] for c in NOT_CLAIMED]
)
def test_words_that_only_look_like_abbreviations_are_left_as_written(
    frontend, language, written, kept
):
    assert kept in _normalized(frontend, language, written)


@pytest.mark.parametrize(
    ("language", "written", "not_said"),
    [
        ("es", "Su número es 2345-7890.", r"\ba\b"),  # a hyphen between numbers: no range
        ("es", "Hay 912 345 678 estrellas.", r"nueve uno dos"),  # no telephone word before it
        ("it", "Il punteggio è 9–19.", r"dalle"),  # no word about hours: a score
        ("it", "Costa 10.30 euro.", r"mezza"),  # no word announcing a time
        ("es", "Mide 5 m de largo.", r"mañana|tarde"),  # metres, not a.m.
        ("pt-br", "Ganhou por 3-1.", r"\ba\b"),
    ],
)
def test_numbers_that_are_no_range_time_or_telephone_are_not_read_as_one(
    frontend, language, written, not_said
):
    assert not re.search(not_said, _normalized(frontend, language, written))


_FOLD = re.compile(r"[ˈˌ\s.,;:!?¿¡—…\"“”«»()\-]")


@pytest.mark.parametrize(
    ("language", "written", "reading"),
    [
        (
            "es",
            "Atendemos L–V de 9:00 a 14:00.",
            "Atendemos de lunes a viernes de nueve a catorce.",
        ),
        (
            "fr-fr",
            "Livraison 8h–12h, lun.–ven.",
            "Livraison de huit heures à douze heures, du lundi au vendredi.",
        ),
        (
            "it",
            "Sconti del 10–20 % gen.–mar.",
            "Sconti del dieci-venti per cento da gennaio a marzo.",
        ),
        (
            "pt-br",
            "Abre das 9h às 18h, seg.–sex.",
            "Abre das nove horas às dezoito horas, de segunda a sexta.",
        ),
    ],
)
def test_a_sentence_of_several_spans_sounds_like_its_reading(frontend, language, written, reading):
    voice = VOICES[language]
    got, want = frontend(written, voice), frontend(reading, voice)
    assert _FOLD.sub("", got.phonemes) == _FOLD.sub("", want.phonemes), got.normalized
