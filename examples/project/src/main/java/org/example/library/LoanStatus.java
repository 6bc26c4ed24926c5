package org.example.library;

import java.time.Duration;

/** Where a copy of a book is. */
public enum LoanStatus {
    AVAILABLE {
        @Override
        public boolean canBorrow() {
            return true;
        }
    },
    ON_LOAN {
        @Override
        public Duration maxLoanPeriod() {
            return Duration.ofDays(21);
        }
    },
    RESERVED,
    LOST;

    /** Tells whether a member may take the copy home now. */
    public boolean canBorrow() {
        return false;
    }

    /** Returns how long a loan may last; zero when the copy cannot be lent. */
    public Duration maxLoanPeriod() {
        return Duration.ZERO;
    }

    /** Describes the status for the catalogue's web page. */
    public String describe() {
        return switch (this) {
            case AVAILABLE -> "on the shelf";
            case ON_LOAN -> "lent out";
            case RESERVED -> "held for a member";
            case LOST -> "missing";
        };
    }
}
