#ifndef REACTORHUB_CCRYPTO_SHIM_H
#define REACTORHUB_CCRYPTO_SHIM_H

// OpenSSL 3's libcrypto as Debian ships it (libssl-dev), for the Auth module only:
// HMAC-SHA256 (one-shot HMAC, and EVP_MAC contexts keyed once), EVP_DigestVerify
// (RS256, ES256), PEM public keys, ECDSA_SIG for the R||S to DER conversion. The
// constants Auth uses (EVP_PKEY_RSA, EVP_PKEY_EC, RSA_PKCS1_PADDING) are plain integer
// macros, which import into Swift as they are; a function-like macro that Auth comes to
// need gets a static inline rh_crypto_ wrapper here.

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#endif
