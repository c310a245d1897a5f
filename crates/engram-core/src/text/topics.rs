//! The families of keys a user names by category when asking to forget:
//! "my music taste" is the favourite band, song and genre; "my contact
//! details" are the phone and email. A request that names a category
//! reaches every fact held under its keys, and only those (never every
//! favourite, never a fact about one of the user's people).

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
            "allergies",
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
            "animal",
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
            "partner",
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

/// Words that make a phrase about someone else ("my sister's address"):
/// it names no category of the user's own facts.
const OTHERS: &[&str] = &[
    "sister",
    "brother",
    "mother",
    "mom",
    "mum",
    "father",
    "dad",
    "wife",
    "husband",
    "son",
    "daughter",
    "friend",
    "friends",
    "boss",
    "colleague",
    "colleagues",
    "neighbour",
    "neighbor",
    "kids",
    "children",
    "child",
    "parents",
    "cousin",
    "aunt",
    "uncle",
    "grandma",
    "grandpa",
    "girlfriend",
    "boyfriend",
    "roommate",
    "partner's",
];

/// The key prefixes of the categories `phrase` names ("my music taste" →
/// favorite.band, favorite.song, …); empty when it names none, or names
/// someone else.
pub fn keys_named(phrase: &str) -> Vec<&'static str> {
    let lower = phrase.to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    if words
        .iter()
        .any(|w| OTHERS.contains(w) || (w.ends_with("'s") && *w != "user's" && *w != "it's"))
    {
        return Vec::new();
    }
    let mut out: Vec<&'static str> = Vec::new();
    for t in TOPICS {
        if words.iter().any(|w| t.words.contains(w)) {
            for k in t.keys {
                if !out.contains(k) {
                    out.push(k);
                }
            }
        }
    }
    out
}

/// Whether `attribute` is held under one of `prefixes` (the key itself or
/// a key below it).
pub fn under_any(attribute: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| {
        attribute == *p
            || attribute
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_category_names_its_keys_and_no_others() {
        let music = keys_named("my music taste");
        assert!(under_any("favorite.band", &music));
        assert!(under_any("favorite.song.title", &music));
        assert!(!under_any("favorite.color", &music));
        assert!(!under_any("favorite", &music));
        assert!(under_any("location.city", &keys_named("my address")));
        assert!(under_any("phone", &keys_named("my contact details")));
        assert!(under_any("employer", &keys_named("meine Arbeit")));
        assert!(keys_named("my sister's address").is_empty());
        assert!(keys_named("my brother's music").is_empty());
        assert!(keys_named("the thing I said").is_empty());
        assert!(!under_any("locations", &["location"]));
    }
}
