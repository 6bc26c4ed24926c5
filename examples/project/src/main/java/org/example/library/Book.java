package org.example.library;

import java.time.Year;
import java.util.List;
import java.util.Objects;

/**
 * A book in the catalogue. Books are immutable values.
 *
 * @param isbn the book's ISBN-13
 * @param title the title as printed on the cover
 * @param authors the authors, in the order given on the title page
 * @param published the year of first publication
 */
public record Book(Isbn isbn, String title, List<String> authors, Year published) {

    public Book {
        Objects.requireNonNull(isbn, "isbn");
        if (title.isBlank()) {
            throw new IllegalArgumentException("a book needs a title");
        }
        authors = List.copyOf(authors);
    }

    /** Returns the first author's family name, used to shelve the book. */
    public String shelfKey() {
        String first = authors.isEmpty() ? "Anonymous" : authors.get(0);
        int space = first.lastIndexOf(' ');
        return space < 0 ? first : first.substring(space + 1);
    }

    /** Tells whether the book is older than the given number of years. */
    public boolean isOlderThan(int years) {
        return published.plusYears(years).isBefore(Year.now());
    }

    /** Formats the book as a short citation. For example: Knuth (1968). */
    public String toCitation() {
        return shelfKey() + " (" + published + ")";
    }
}
