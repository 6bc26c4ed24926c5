package org.example.library;

import java.text.Normalizer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** An inverted index from title words to books. */
class SearchIndex {

    private final Map<String, Set<Isbn>> postings = new HashMap<>();

    /** Indexes every word of a title. */
    void addTitle(Isbn isbn, String title) {
        for (String word : tokenize(title)) {
            postings.computeIfAbsent(word, w -> new HashSet<>()).add(isbn);
        }
    }

    /** Returns the books whose titles contain all the words of the query. */
    Set<Isbn> lookup(String query) {
        Set<Isbn> result = null;
        for (String word : tokenize(query)) {
            Set<Isbn> hits = postings.getOrDefault(word, Set.of());
            if (result == null) {
                result = new HashSet<>(hits);
            } else {
                result.retainAll(hits);
            }
        }
        return result == null ? Set.of() : result;
    }

    /** Splits text into lower-case words without accents. */
    static String[] tokenize(String text) {
        String plain = Normalizer.normalize(text, Normalizer.Form.NFD).replaceAll("\\p{M}", "");
        return plain.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+");
    }

    /** Returns how many distinct words are indexed. */
    int vocabularySize() {
        return postings.size();
    }
}
