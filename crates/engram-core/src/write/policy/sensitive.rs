//! Sensitive categories (GDPR art. 9 and the like): stored only when the
//! user states them and the caller allows it.

use regex::Regex;
use std::sync::LazyLock;

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("bad pattern {p}: {e}"))
}

static SENSITIVE: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    vec![
        (
            "health",
            re(
                r"(?i)\b(?:allerg(?:y|ic|ies)|diagnos\w*|depress\w*|anxiety|adhd|autis\w*|diabet\w*|asthma|cancer|hiv|aids|pregnan\w*|miscarriage|medication|prescri\w*|therapy|therapist|psychiatr\w*|disorder|illness|disease|surgery|chemo\w*|insulin|antidepressant\w*|bipolar|schizophreni\w*|epilep\w*|rehab|addict\w*|sober|disabilit\w*|chronic pain|migraines?)\b",
            ),
        ),
        (
            "religion",
            re(
                r"(?i)\b(?:christian|catholic|protestant|muslim|islam\w*|jewish|judaism|hindu\w*|buddhis\w*|sikh|atheist|agnostic|mormon|church|mosque|synagogue|temple|pray(?:s|ing|ed)?|ramadan|religio\w*|faith)\b",
            ),
        ),
        (
            "politics",
            re(
                r"(?i)\b(?:democrat\w*|republican\w*|labou?r party|tory|tories|conservative party|liberal party|green party|socialist|communist|libertarian|maga|vote[sd]? (?:for|against)|political (?:views?|party)|left-wing|right-wing|trade union)\b",
            ),
        ),
        (
            "sexual orientation",
            re(
                r"(?i)\b(?:gay|lesbian|bisexual|queer|asexual|pansexual|homosexual|heterosexual|lgbt\w*|transgender|non-binary|coming out|came out)\b",
            ),
        ),
        (
            "precise location",
            re(
                r"(?i)\b\d{1,5}\s+(?:[a-z]+\s){0,3}(?:street|st|road|rd|avenue|ave|lane|ln|boulevard|blvd|drive|dr|court|ct|way|place|pl|square|sq)\b|\b(?:postcode|zip code|zipcode)\b|\b\d{5}(?:-\d{4})?\b.{0,5}$|\b(?:gps|coordinates)\b|-?\d{1,3}\.\d{3,},\s*-?\d{1,3}\.\d{3,}",
            ),
        ),
        (
            "financial hardship",
            re(
                r"(?i)\b(?:in debt|debts?\b|bankrupt\w*|can't afford|cannot afford|can't pay|cannot pay|behind on (?:rent|bills|payments)|evict\w*|unemployed|laid off|lost my job|broke\b|food bank|payday loan|foreclos\w*|overdraft)",
            ),
        ),
        // The same categories in German, Spanish, French, Portuguese,
        // Italian, Russian and Chinese: text in those languages is kept
        // verbatim when no LLM reads it (unread.rs), so the screen must
        // read them too. Stems, not sentences; words with an everyday
        // second meaning ("parti" = left, "partido" = a match, "prego" =
        // please) only in their political or religious phrase.
        (
            "health",
            re(concat!(
                r"(?i)\b(?:diabet\w*|diabèt\w*|diabete|krebs|krebserkrank\w*|cáncer|cancro|câncer|tumore|depression\w*|depresi\w*|dépressi\w*|depressão|depressione|diagnos\w*|diagnóstic\w*|diagnostiqu\w*|",
                r"insulin\w*|therapie|therapeut\w*|terapia|terapeuta|thérapi\w*|psychiat\w*|psiquiatr\w*|psichiatr\w*|allergi\w*|alergi\w*|schwanger\w*|embarazad\w*|enceinte|grávida|incinta|",
                r"krankheit\w*|erkrankt\w*|enfermedad\w*|maladie\w*|doença\w*|malattia|medikament\w*|medicament\w*|médicament\w*|farmac\w*|angststörung\w*|ansiedad|anxiété|ansiedade|ansia|",
                r"behinderung\w*|discapacidad|handicap\w*|deficiência|disabilit\w*|sucht\w*|süchtig|adicci\w*|chemo\w*|quimio\w*|migräne|migraña|migraine|epilep\w*|asthma|asma|fehlgeburt|aborto|",
                r"диабет\w*|рак\b|раком|депресс\w*|диагноз\w*|инсулин\w*|терапи\w*|аллерги\w*|беремен\w*|болезн\w*|лекарств\w*|инвалид\w*|психиатр\w*|вич)\b|",
                r"糖尿病|癌症|抑郁|诊断|胰岛素|过敏|怀孕|疾病|残疾|艾滋|精神病|焦虑症"
            )),
        ),
        (
            "religion",
            re(concat!(
                r"(?i)\b(?:christ(?:in|en)?|christlich\w*|katholi\w*|evangeli\w*|muslim\w*|moslem\w*|jüdisch\w*|jude|jüdin|buddhist\w*|atheist\w*|kirche|moschee|synagoge|beten|bete|gebet\w*|religi\w*|",
                r"cristian\w*|cristã\w*|cristão\w*|católic\w*|cattolic\w*|catholique|evangélic\w*|evangelic\w*|musulm\w*|muçulman\w*|judí\w*|judío|judeu|judia|juif|juive|ebre[oia]|budista|bouddhiste|buddist\w*|",
                r"ateo|atea|athée|ateu|ateia|iglesia|église|igreja|chiesa|mezquita|mosquée|mesquita|moschea|sinagoga|rezo|rezar|prier|pregare|prego\s+(?:dio|ogni)|(?:a|alla)\s+messa|a\s+misa|à\s+missa|la\s+messe|",
                r"христиан\w*|католи\w*|православн\w*|мусульман\w*|иуде\w*|буддист\w*|атеист\w*|церк\w*|мечет\w*|синагог\w*|молюсь|молиться|религи\w*)\b|",
                r"基督|天主教|佛教|穆斯林|伊斯兰|犹太|无神论|教堂|清真寺|祈祷|礼拜|宗教"
            )),
        ),
        (
            "politics",
            re(concat!(
                r"(?i)\b(?:cdu|csu|spd|afd|fdp|grünen|linkspartei|partei\w*|gewerkschaft\w*|bei\s+der\s+(?:letzten\s+)?wahl|sozialist\w*|kommunist\w*|",
                r"partido\s+(?:socialista|popular|comunista|político|democrático|dos\s+trabalhadores|verde)|partito\s+(?:democratico|comunista|socialista|politico)|parti\s+(?:socialiste|communiste|politique|républicain|écologiste)|",
                r"socialista|comunista|socialiste|communiste|écologistes|sindicato|syndicat|sindacato|vot[éeoa]\w*\s+(?:por|a|al|pour|contre|no|na|em|per|contro|en\s+contra)\b|",
                r"rassemblement\s+national|front\s+national|голосовал\w*|голосую|парти[яиюей]\w*|коммунист\w*|социалист\w*|профсоюз\w*)\b|",
                r"投票给|党员|共产党|民主党|工会"
            )),
        ),
        (
            "sexual orientation",
            re(concat!(
                r"(?i)\b(?:schwul\w*|lesbisch\w*|lesbiana|lesbienne|lésbica|lesbica|bisexuell\w*|bisexual\w*|bisexuel\w*|bissexual|bisessuale|homosexuell\w*|homosexual|homosexuel\w*|homossexual|omosessuale|",
                r"transgénero|transgênero|transgenre|nicht-binär|coming-out|гей|лесбиянк\w*|бисексуал\w*|гомосексуал\w*|трансгендер\w*)\b|",
                r"同性恋|双性恋|跨性别|出柜"
            )),
        ),
        (
            "precise location",
            re(concat!(
                r"(?i)(?:straße|strasse|str\.|weg|platz|allee|gasse)\s*\d{1,4}\b|\b\d{5}\s+\p{Lu}\p{Ll}+|",
                r"\b(?:calle|c/|avenida|avda\.?|plaza|paseo|rua|travessa|praça|largo|via|viale|piazza|corso|vicolo)\s+[\p{L} ]{2,30}?,?\s*\d{1,4}\b|",
                r"\b\d{1,4}(?:\s*(?:bis|ter))?,?\s+(?:rue|avenue|boulevard|bd|place|allée|impasse|chemin)\b|\b\d{4}-\d{3}\b|",
                r"\b(?:mi\s+dirección\s+es|mon\s+adresse\s+est|meine\s+adresse\s+(?:ist|lautet)|(?:a\s+)?minha\s+morada|meu\s+endereço|il\s+mio\s+indirizzo|мой\s+адрес|улиц[аеы]|проспект)\b|",
                r"我家的地址|我的地址|住址|[路街道]\d{1,5}号"
            )),
        ),
        (
            "financial hardship",
            re(concat!(
                r"(?i)\b(?:schulden|verschuldet|pleite|insolven\w*|arbeitslos\w*|zwangsräumung|miete\s+nicht|deudas?|endeudad\w*|en\s+paro|desemplead\w*|desahucio\w*|no\s+puedo\s+pagar|quiebra|bancarrota|",
                r"dettes?|endetté\w*|surendett\w*|chômage|chômeur|chômeuse|expulsé\w*|n'arrive\s+(?:pas|plus)\s+à\s+payer|faillite|dívidas?|endividad\w*|desempregad\w*|despejad\w*|não\s+consigo\s+pagar|falência|",
                r"debiti|indebitat\w*|disoccupat\w*|sfratt\w*|non\s+riesco\s+a\s+pagare|bancarotta|долг(?:и|ов|ах|ами)|безработн\w*|уволили|не\s+могу\s+(?:платить|заплатить)|банкрот\w*)\b|",
                r"欠债|欠了.{0,4}债|负债|失业|付不起|破产"
            )),
        ),
    ]
});

/// The sensitive category `text` touches, if any.
pub fn sensitive_category(text: &str) -> Option<&'static str> {
    SENSITIVE
        .iter()
        .find(|(_, p)| p.is_match(text))
        .map(|(cat, _)| *cat)
}

/// `text` without its clauses in a sensitive category, and the categories
/// left out: what may be kept verbatim when sensitive categories are not
/// allowed ("I'm allergic to peanuts and I live in Berlin" keeps "I live in
/// Berlin").
pub fn without_sensitive(text: &str) -> (String, Vec<&'static str>) {
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for sentence in crate::text::sentences(text) {
        let clauses = crate::text::clauses(sentence);
        let flagged: Vec<Option<&'static str>> =
            clauses.iter().map(|c| sensitive_category(c)).collect();
        if flagged.iter().all(Option::is_none) {
            kept.push(sentence.to_owned());
            continue;
        }
        for (clause, cat) in clauses.iter().zip(flagged) {
            match cat {
                Some(cat) => {
                    if !left_out.contains(&cat) {
                        left_out.push(cat);
                    }
                }
                None => kept.push(format!("{clause}.")),
            }
        }
    }
    (kept.join(" "), left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensitive_categories() {
        assert_eq!(
            sensitive_category("I was diagnosed with diabetes"),
            Some("health")
        );
        assert_eq!(
            sensitive_category("I'm allergic to peanuts"),
            Some("health")
        );
        assert_eq!(
            sensitive_category("I go to church on Sundays"),
            Some("religion")
        );
        assert_eq!(
            sensitive_category("I voted for the Green Party"),
            Some("politics")
        );
        assert_eq!(
            sensitive_category("I live at 12 Baker Street"),
            Some("precise location")
        );
        assert_eq!(
            sensitive_category("I can't afford my rent"),
            Some("financial hardship")
        );
        assert_eq!(sensitive_category("I live in Austin"), None);
        assert_eq!(sensitive_category("I work at a bank"), None);
    }

    #[test]
    fn sensitive_clauses_are_left_out_of_verbatim_text() {
        let (text, cats) = without_sensitive(
            "I am allergic to peanuts and I live in Berlin. My dog is called Rex.",
        );
        assert_eq!(text, "I live in Berlin. My dog is called Rex.");
        assert_eq!(cats, ["health"]);
        assert_eq!(without_sensitive("I like tea.").0, "I like tea.");
    }
}
