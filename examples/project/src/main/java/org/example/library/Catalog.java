package org.example.library;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** The library's catalogue: books, their copies and a title search index. */
public class Catalog {

    /** Something the catalogue tells its listeners about. */
    public sealed interface Event permits BookAdded, StatusChanged {
        /** The book the event is about. */
        Isbn isbn();

        /** Returns a line for the audit log. */
        default String toLogLine() {
            return getClass().getSimpleName() + " " + isbn();
        }
    }

    /** A book entered the catalogue. */
    public record BookAdded(Isbn isbn) implements Event {}

    /** A copy changed status. */
    public record StatusChanged(Isbn isbn, LoanStatus from, LoanStatus to) implements Event {}

    private final Map<Isbn, Book> books = new HashMap<>();
    private final Map<Isbn, LoanStatus> status = new HashMap<>();
    private final SearchIndex index = new SearchIndex();
    private final List<java.util.function.Consumer<Event>> listeners = new ArrayList<>();

    /** Adds a book, or replaces the record of one already there. */
    public void addBook(Book book) {
        books.put(book.isbn(), book);
        status.putIfAbsent(book.isbn(), LoanStatus.AVAILABLE);
        index.addTitle(book.isbn(), book.title());
        fireEvent(new BookAdded(book.isbn()));
    }

    /** Finds a book by its ISBN. */
    public Optional<Book> findByIsbn(Isbn isbn) {
        return Optional.ofNullable(books.get(isbn));
    }

    /** Finds the books whose title contains every word of the query. */
    public List<Book> searchTitles(String query) {
        List<Book> found = new ArrayList<>();
        for (Isbn isbn : index.lookup(query)) {
            found.add(books.get(isbn));
        }
        found.sort(Comparator.comparing(Book::title));
        return found;
    }

    /** Lists the books matching a filter, sorted for the shelves. */
    public List<Book> listBooks(Predicate<Book> filter) {
        return books.values().stream()
                .filter(filter)
                .sorted(Comparator.comparing(Book::shelfKey).thenComparing(Book::title))
                .toList();
    }

    /** Lends a copy out; fails when it is not available. */
    public void checkOut(Isbn isbn) {
        LoanStatus now = getStatus(isbn);
        if (!now.canBorrow()) {
            throw new IllegalStateException(isbn + " is " + now.describe());
        }
        setStatus(isbn, LoanStatus.ON_LOAN);
    }

    /** Takes a copy back onto the shelf. */
    public void returnBook(Isbn isbn) {
        setStatus(isbn, LoanStatus.AVAILABLE);
    }

    /** Returns the status of the book's copy. */
    public LoanStatus getStatus(Isbn isbn) {
        LoanStatus s = status.get(isbn);
        if (s == null) {
            throw new IllegalArgumentException("unknown book " + isbn);
        }
        return s;
    }

    private void setStatus(Isbn isbn, LoanStatus to) {
        LoanStatus from = status.put(isbn, to);
        fireEvent(new StatusChanged(isbn, from, to));
    }

    /** Registers a listener for catalogue events. */
    public void addListener(java.util.function.Consumer<Event> listener) {
        listeners.add(listener);
    }

    private void fireEvent(Event event) {
        listeners.forEach(listener -> listener.accept(event));
    }

    /** Counts the copies in each status, for the monthly report. */
    public Map<LoanStatus, Integer> countByStatus() {
        Map<LoanStatus, Integer> counts = new HashMap<>();
        status.values().forEach(s -> counts.merge(s, 1, Integer::sum));
        return counts;
    }
}
