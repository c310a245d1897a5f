//! The families of keys a user names by category when asking to forget:
//! "my music taste" is the favourite band, song and genre; "my contact
//! details" are the phone and email. A request that names a category
//! reaches every fact held under its keys, and only those (never every
//! favourite, never a fact about one of the user's people). A phrase names
//! a category only when every word of it does, or is a word such as
//! "taste", "details" or "my": "my work schedule" names no category.

/// A category: the words that name it (in lower case, English and the
/// languages the screens read) and the key prefixes it covers.
struct Topic {
    words: &'static [&'static str],
    keys: &'static [&'static str],
}

const TOPICS: &[Topic] = &[
    Topic {
        words: &[
            "music",
            "musical",
            "band",
            "bands",
            "song",
            "songs",
            "singer",
            "singers",
            "artist",
            "artists",
            "genre",
            "genres",
            "album",
            "albums",
            "playlist",
            "playlists",
            "musik",
            "música",
            "musica",
            "musique",
            "muziek",
            "музыка",
            "музыку",
            "muzyka",
            "muzykę",
        ],
        keys: &[
            "favorite.band",
            "favorite.song",
            "favorite.singer",
            "favorite.artist",
            "favorite.music",
            "favorite.genre",
            "favorite.album",
            "likes.music",
            "music",
            "instrument",
        ],
    },
    Topic {
        words: &[
            "address",
            "addresses",
            "street",
            "home",
            "flat",
            "apartment",
            "adresse",
            "anschrift",
            "dirección",
            "direccion",
            "domicilio",
            "indirizzo",
            "endereço",
            "endereco",
            "adres",
            "адрес",
        ],
        keys: &["location", "address", "home"],
    },
    Topic {
        words: &[
            "phone",
            "mobile",
            "cell",
            "email",
            "e-mail",
            "contact",
            "contacts",
            "telefon",
            "telefonnummer",
            "handynummer",
            "teléfono",
            "telefono",
            "téléphone",
            "telefone",
            "телефон",
            "correo",
        ],
        keys: &["phone", "email", "contact"],
    },
    Topic {
        words: &[
            "job",
            "jobs",
            "work",
            "career",
            "employer",
            "workplace",
            "profession",
            "occupation",
            "beruf",
            "arbeit",
            "arbeitgeber",
            "trabajo",
            "empleo",
            "travail",
            "emploi",
            "lavoro",
            "trabalho",
            "emprego",
            "baan",
            "работа",
            "работу",
            "praca",
            "pracę",
        ],
        keys: &["employer", "role", "work", "job"],
    },
    Topic {
        words: &[
            "food",
            "foods",
            "diet",
            "eating",
            "cuisine",
            "dishes",
            "meals",
            "essen",
            "ernährung",
            "comida",
            "dieta",
            "nourriture",
            "régime",
            "cibo",
            "alimentação",
            "eten",
            "еда",
        ],
        keys: &[
            "diet",
            "favorite.food",
            "favorite.dish",
            "favorite.cuisine",
            "favorite.meal",
            "favorite.drink",
        ],
    },
    Topic {
        words: &[
            "health",
            "medical",
            "allergy",
            "allergies",
            "medication",
            "medications",
            "medicine",
            "condition",
            "conditions",
            "gesundheit",
            "allergien",
            "salud",
            "alergias",
            "santé",
            "salute",
            "saúde",
            "здоровье",
            "zdrowie",
        ],
        keys: &["allergy", "health", "medication", "condition"],
    },
    Topic {
        words: &[
            "pet",
            "pets",
            "animal",
            "animals",
            "haustier",
            "haustiere",
            "mascota",
            "mascotas",
            "animaux",
            "animale",
            "animali",
            "huisdier",
            "питомец",
            "zwierzę",
        ],
        keys: &["pet"],
    },
    Topic {
        words: &[
            "family",
            "relatives",
            "familie",
            "familia",
            "famille",
            "famiglia",
            "família",
            "семья",
            "rodzina",
        ],
        keys: &["family"],
    },
    Topic {
        words: &[
            "hobby",
            "hobbies",
            "pastime",
            "pastimes",
            "hobbys",
            "pasatiempos",
            "aficiones",
            "loisirs",
            "passatempi",
            "hobby's",
        ],
        keys: &["hobby", "likes"],
    },
    Topic {
        words: &[
            "language",
            "languages",
            "sprachen",
            "idiomas",
            "langues",
            "lingue",
            "línguas",
            "talen",
            "языки",
        ],
        keys: &["language", "learning"],
    },
    Topic {
        words: &[
            "age",
            "birthday",
            "birthdate",
            "alter",
            "geburtstag",
            "edad",
            "cumpleaños",
            "âge",
            "anniversaire",
            "età",
            "compleanno",
            "idade",
            "aniversário",
            "leeftijd",
            "verjaardag",
            "возраст",
            "wiek",
        ],
        keys: &["age", "birthday"],
    },
    Topic {
        words: &[
            "relationship",
            "marriage",
            "marital",
            "dating",
            "beziehung",
            "relación",
            "pareja",
            "relation",
            "couple",
            "relazione",
            "relacionamento",
        ],
        keys: &[
            "relationship",
            "family.partner",
            "family.wife",
            "family.husband",
        ],
    },
    Topic {
        words: &[
            "travel",
            "travels",
            "trip",
            "trips",
            "holiday",
            "holidays",
            "vacation",
            "vacations",
            "reise",
            "reisen",
            "urlaub",
            "viaje",
            "viajes",
            "voyage",
            "voyages",
            "viaggio",
            "viagem",
        ],
        keys: &["plan.travel", "travel", "trip"],
    },
    Topic {
        words: &[
            "movie",
            "movies",
            "film",
            "films",
            "show",
            "shows",
            "series",
            "tv",
            "filme",
            "película",
            "películas",
            "cinéma",
        ],
        keys: &[
            "favorite.movie",
            "favorite.film",
            "favorite.show",
            "favorite.series",
            "favorite.actor",
        ],
    },
    Topic {
        words: &[
            "book", "books", "reading", "author", "authors", "bücher", "libros", "livres", "libri",
            "livros",
        ],
        keys: &["favorite.book", "favorite.author", "favorite.genre"],
    },
    Topic {
        words: &["sport", "sports", "deporte", "deportes"],
        keys: &["favorite.team", "favorite.sport", "sport"],
    },
    Topic {
        words: &[
            "car", "cars", "vehicle", "vehicles", "auto", "coche", "voiture", "macchina", "carro",
        ],
        keys: &["car", "vehicle", "tool.car"],
    },
];

/// Words that name no category and no thing: possessives, articles,
/// prepositions, and the nouns a category is said with ("my music
/// taste", "my contact details", "my phone number", "my travel plans").
const FRAME: &[&str] = &[
    "my",
    "our",
    "the",
    "a",
    "an",
    "all",
    "any",
    "of",
    "in",
    "about",
    "on",
    "and",
    "your",
    "taste",
    "tastes",
    "details",
    "detail",
    "info",
    "information",
    "data",
    "preferences",
    "preference",
    "plans",
    "plan",
    "number",
    "numbers",
    "stuff",
    "things",
    "history",
    "status",
    "settings",
    "choices",
    "habits",
    "life",
    "situation",
    "mein",
    "meine",
    "meinen",
    "unsere",
    "mi",
    "mis",
    "nuestra",
    "mon",
    "ma",
    "mes",
    "il",
    "la",
    "le",
    "mio",
    "mia",
    "meu",
    "minha",
    "mijn",
    "moj",
    "moja",
    "мой",
    "моя",
    "мою",
    "мои",
];

/// The key prefixes of the categories `phrase` names ("my music taste" →
/// favorite.band, favorite.song, …); empty when it names none, names
/// something more than a category ("my work schedule"), or names one of
/// the user's people ("my sister's address").
pub fn keys_named(phrase: &str) -> Vec<&'static str> {
    if super::statement::names_a_person(phrase) {
        return Vec::new();
    }
    let lower = phrase.to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| !w.is_empty() && !FRAME.contains(w))
        .collect();
    let named: Vec<&Topic> = TOPICS
        .iter()
        .filter(|t| words.iter().any(|w| t.words.contains(w)))
        .collect();
    let covered = words
        .iter()
        .all(|w| named.iter().any(|t| t.words.contains(w)));
    if words.is_empty() || !covered {
        return Vec::new();
    }
    let mut out: Vec<&'static str> = Vec::new();
    for k in named.iter().flat_map(|t| t.keys.iter()) {
        if !out.contains(k) {
            out.push(k);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_category_names_its_keys_and_no_others() {
        let music = keys_named("my music taste");
        assert!(music.contains(&"favorite.band") && music.contains(&"favorite.song"));
        assert!(!music.iter().any(|k| k.starts_with("favorite.col")));
        assert!(!music.contains(&"favorite"));
        assert_eq!(keys_named("my taste in music"), music);
        assert!(keys_named("my address").contains(&"location"));
        assert!(keys_named("my home address").contains(&"address"));
        assert!(keys_named("my contact details").contains(&"phone"));
        assert!(keys_named("my phone number").contains(&"phone"));
        assert!(keys_named("meine Arbeit").contains(&"employer"));
        // Someone else's, more than a category, or nothing named.
        for phrase in [
            "my sister's address",
            "my brother's music",
            "my work schedule",
            "my favourite number",
            "the thing I said",
            "my",
        ] {
            assert!(keys_named(phrase).is_empty(), "{phrase}");
        }
    }
}
