<?php

namespace App;

class Mailer
{
    private $transport;

    /**
     * Sends a message to every recipient.
     *
     * @param array $recipients the addresses
     */
    public function sendToAll(array $recipients, string $message): int
    {
        $sent = 0;
        foreach ($recipients as $address) {
            $sent += $this->transport->send($address, $message);
        }
        return $sent;
    }

    /** Checks that an address has an at sign. */
    public static function isValidAddress($address)
    {
        return strpos($address, "@") !== false;
    }
}

/** Formats a greeting for a user. */
function format_greeting($userName)
{
    return "Hello, " . $userName;
}
