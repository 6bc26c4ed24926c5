package org.example.library;

/** An ISBN-13 number with its check digit verified. */
public final class Isbn implements Comparable<Isbn> {

    private final String digits;

    private Isbn(String digits) {
        this.digits = digits;
    }

    /**
     * Parses an ISBN written with or without hyphens.
     *
     * @param text the ISBN as printed
     * @return the parsed number
     * @throws IllegalArgumentException if the text is not a valid ISBN-13
     */
    public static Isbn parse(String text) {
        String digits = text.replace("-", "").strip();
        if (digits.length() != 13 || !digits.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("not an ISBN-13: " + text);
        }
        if (computeCheckDigit(digits) != digits.charAt(12) - '0') {
            throw new IllegalArgumentException("bad check digit: " + text);
        }
        return new Isbn(digits);
    }

    /** Computes the check digit from the first twelve digits. */
    static int computeCheckDigit(String digits) {
        int sum = 0;
        for (int i = 0; i < 12; i++) {
            int d = digits.charAt(i) - '0';
            sum += (i % 2 == 0) ? d : 3 * d;
        }
        return (10 - sum % 10) % 10;
    }

    /** Returns the registration group, such as 978-0 for English. */
    public String getRegistrationGroup() {
        return digits.substring(0, 3) + "-" + digits.charAt(3);
    }

    @Override
    public int compareTo(Isbn other) {
        return digits.compareTo(other.digits);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Isbn other && digits.equals(other.digits);
    }

    @Override
    public int hashCode() {
        return digits.hashCode();
    }

    @Override
    public String toString() {
        return digits;
    }
}
