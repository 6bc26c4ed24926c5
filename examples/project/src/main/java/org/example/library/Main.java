package org.example.library;

import java.time.Year;
import java.util.List;

/** A small demonstration of the catalogue. */
public final class Main {

    private Main() {}

    /** Loads two books, lends one and prints the catalogue. */
    public static void main(String[] args) {
        Catalog catalog = new Catalog();
        catalog.addListener(event -> System.out.println(event.toLogLine()));
        catalog.addListener(new java.util.function.Consumer<>() {
            private int seen;

            @Override
            public void accept(Catalog.Event event) {
                seen++;
            }
        });
        Book taocp = new Book(Isbn.parse("978-0-201-89683-1"),
                "The Art of Computer Programming", List.of("Donald Knuth"), Year.of(1968));
        catalog.addBook(taocp);
        catalog.addBook(new Book(Isbn.parse("978-0-262-51087-5"),
                "Structure and Interpretation of Computer Programs",
                List.of("Harold Abelson", "Gerald Jay Sussman"), Year.of(1985)));
        catalog.checkOut(taocp.isbn());
        printReport(catalog);
    }

    static void printReport(Catalog catalog) {
        class Line {
            String format(Book book) {
                return "%-50s %s".formatted(book.title(), book.toCitation());
            }
        }
        Line line = new Line();
        for (Book book : catalog.listBooks(b -> true)) {
            System.out.println(line.format(book));
        }
        System.out.println(catalog.countByStatus());
    }
}
