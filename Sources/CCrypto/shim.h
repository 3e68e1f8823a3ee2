// SHA-256 through OpenSSL's own SHA256_* calls, not EVP: OpenSSL 3 marks them deprecated, but they
// run the same SHA-NI code without EVP's first fetch of a provider, which cost every one-shot
// command 0.8 ms (the config file read, the default provider loaded) before a byte was hashed.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
// HMAC-SHA256 (the workspace's session cookie; webhooks' signatures next) and a comparison that
// takes the same time whatever the bytes.
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
