<?php
// X-Server-Authorization (docs/protocol.md §2.1) in PHP, checked against
// the vectors of Appendix A: php sign.php vectors.json

// --- the snippet -------------------------------------------------------
/** The signature of the exact bytes sent (the raw body, e.g. file_get_contents('php://input')). */
function wagerlink_sign(string $secret, string $body): string
{
    return hash_hmac('sha256', $body, $secret);
}

/** A received signature checked in constant time: exactly 64 characters 0-9a-f, and equal. */
function wagerlink_verify(string $secret, string $body, string $signature): bool
{
    return preg_match('/\A[0-9a-f]{64}\z/', $signature) === 1 && hash_equals(wagerlink_sign($secret, $body), $signature);
}
// -----------------------------------------------------------------------

$file = $argv[1] ?? 'vectors.json';
$vectors = json_decode(file_get_contents($file), true, 512, JSON_THROW_ON_ERROR)['vectors'];
$failed = 0;
foreach ($vectors as $vector) {
    // json_decode gives UTF-8 strings: the body's exact bytes.
    $ok = wagerlink_sign($vector['secret'], $vector['body']) === $vector['signature']
        && wagerlink_verify($vector['secret'], $vector['body'], $vector['signature'])
        && !wagerlink_verify($vector['secret'], $vector['body'], strtoupper($vector['signature']));
    echo ($ok ? 'ok ' : 'FAILED ') . $vector['name'] . "\n";
    if (!$ok) {
        $failed++;
    }
}
exit($failed === 0 ? 0 : 1);
