#!/usr/bin/env bash
# Makes the TLS fixtures of the integration tests (TLSIntegrationTests.swift) and of the SPKI unit
# tests (Tests/CourierTests/TLS/), in this script's folder. TEST-ONLY KEYS: see README.md.
#
#   bash Tests/CourierIntegrationTests/Fixtures/TLS/make-certificates.sh
#
# Needs the openssl command-line tool (1.1.1 or 3.x). Every run makes new keys, so every pin in
# pins.txt changes with them; the tests read pins.txt, never a pin copied into Swift.
# Certificates are valid for 100 years from the day they are made.
set -euo pipefail

cd "$(dirname "$0")"
days=36500
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ec_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
rsa_key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null; }

# ca NAME "SUBJECT": a self-signed CA, NAME.pem and NAME.key.
ca() {
    ec_key "$1.key"
    openssl req -x509 -new -key "$1.key" -sha256 -days "$days" -subj "$2" -out "$1.pem" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -addext "subjectKeyIdentifier=hash"
}

# leaf NAME CA "SUBJECT" EXTENDED_KEY_USAGE [SUBJECT_ALT_NAMES]: NAME.pem signed by CA for NAME.key
# (made beforehand). An RSA key may also encipher (RSA key exchange); an EC key only signs.
leaf() {
    local name=$1 ca=$2 subject=$3 usage=$4 names=${5:-}
    local extensions="$work/$name.ext" keyUsage=digitalSignature
    if openssl pkey -in "$name.key" -noout -text | grep -q '^modulus'; then keyUsage=digitalSignature,keyEncipherment; fi
    {
        echo "basicConstraints=critical,CA:FALSE"
        echo "keyUsage=critical,$keyUsage"
        echo "extendedKeyUsage=$usage"
        echo "subjectKeyIdentifier=hash"
        echo "authorityKeyIdentifier=keyid"
        if [ -n "$names" ]; then echo "subjectAltName=$names"; fi
    } > "$extensions"
    openssl req -new -key "$name.key" -subj "$subject" -out "$work/$name.csr"
    openssl x509 -req -in "$work/$name.csr" -CA "$ca.pem" -CAkey "$ca.key" -CAcreateserial \
        -CAserial "$work/$ca.srl" -days "$days" -sha256 -extfile "$extensions" -out "$name.pem" 2>/dev/null
}

# The private CA the tests trust, and what it signs.
ca ca "/O=Courier tests/CN=Courier Test CA"
ec_key server-ec.key
leaf server-ec ca "/O=Courier tests/CN=localhost (EC)" serverAuth "IP:127.0.0.1,DNS:localhost"
rsa_key server-rsa.key
leaf server-rsa ca "/O=Courier tests/CN=localhost (RSA)" serverAuth "IP:127.0.0.1,DNS:localhost"
ec_key wrong-name.key
leaf wrong-name ca "/O=Courier tests/CN=wrong.example" serverAuth "DNS:wrong.example"

# A CA nobody trusts, and a leaf it signed that is otherwise right for 127.0.0.1.
ca other-ca "/O=Somebody else/CN=Untrusted Test CA"
ec_key untrusted.key
leaf untrusted other-ca "/O=Somebody else/CN=localhost" serverAuth "IP:127.0.0.1,DNS:localhost"

# The key the server would rotate to: only its pin is used (a backup pin).
ec_key backup.key

# Mutual TLS: the CA the server trusts for clients, and the client's identity.
ca client-ca "/O=Courier tests/CN=Courier Test Client CA"
ec_key client.key
leaf client client-ca "/O=Courier tests/CN=courier-test-client" clientAuth
# The same client key in the traditional "EC PRIVATE KEY" form, and encrypted (passphrase "test").
openssl ec -in client.key -out client-traditional.key 2>/dev/null
openssl pkey -in client.key -aes-256-cbc -passout pass:test -out client-encrypted.key

# pin NAME: the base64 SHA-256 of NAME's DER SubjectPublicKeyInfo (an RFC 7469 pin-sha256).
spki() { openssl pkey -in "$1.key" -pubout -outform der; }
pins=pins.txt
{
    echo "# name pin-sha256 (base64 SHA-256 of the DER SubjectPublicKeyInfo); made by make-certificates.sh"
    for name in server-ec server-rsa wrong-name untrusted; do
        echo "$name $(openssl x509 -pubkey -noout -in "$name.pem" | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)"
    done
    echo "backup $(spki backup | openssl dgst -sha256 -binary | base64)"
} > "$pins"

# For the SPKI unit tests: each server key's DER SubjectPublicKeyInfo, and the raw key Apple's
# SecKeyCopyExternalRepresentation returns: the uncompressed EC point (the SPKI's BIT STRING
# content, 65 bytes for P-256) and the PKCS #1 RSAPublicKey.
spki server-ec > server-ec.spki.der
tail -c 65 server-ec.spki.der > server-ec.raw.der
spki server-rsa > server-rsa.spki.der
openssl pkey -in server-rsa.key -pubout | openssl rsa -pubin -RSAPublicKey_out -outform der -out server-rsa.raw.der 2>/dev/null
# The two other curves the SPKI code names, from throwaway keys (no certificate, key not kept).
for curve in P-384 P-521; do
    name=ec-$(echo "$curve" | tr -d '-' | tr 'P' 'p')
    openssl genpkey -algorithm EC -pkeyopt "ec_paramgen_curve:$curve" -out "$work/$name.key" 2>/dev/null
    openssl pkey -in "$work/$name.key" -pubout -outform der -out "$name.spki.der"
    size=$([ "$curve" = P-384 ] && echo 97 || echo 133)
    tail -c "$size" "$name.spki.der" > "$name.raw.der"
done

# Every leaf verifies against its CA, and the raw EC point is what the SPKI ends with.
for name in server-ec server-rsa wrong-name; do openssl verify -CAfile ca.pem "$name.pem" > /dev/null; done
openssl verify -CAfile other-ca.pem untrusted.pem > /dev/null
openssl verify -CAfile client-ca.pem client.pem > /dev/null
[ "$(head -c 1 server-ec.raw.der | od -An -tx1 | tr -d ' ')" = 04 ]
echo "made $(ls ./*.pem ./*.key ./*.der | wc -l) files and $pins"
