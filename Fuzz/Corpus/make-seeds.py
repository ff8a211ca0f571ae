#!/usr/bin/env python3
"""Writes the handwritten seed corpus of every fuzz target into Fuzz/Corpus/<Target>/.

Run it after changing a seed here (python3 Fuzz/Corpus/make-seeds.py); the files it writes are
committed, so CI needs no Python. A file dropped into a corpus folder by hand (a crash turned
regression input, say) is kept: this script only writes the files it names.

Several targets read a first byte of options before the input proper; the helpers below write
it (see each target's header comment for what it selects).
"""
import os
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))

# Mirrors fuzzCharsets in Fuzz/Sources/FuzzSupport/XMLInputs.swift.
CHARSETS = [None, "utf-8", "us-ascii", "iso-8859-1", "windows-1252", "utf-16", "utf-16le", "utf-16be", "utf-32", "ebcdic-fuzz"]


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def xml_tree(name, body, charset=None, whitespace=False):
    """FuzzXMLTree: options byte = charset index << 1 | preservingWhitespace."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    write("FuzzXMLTree", name, bytes([CHARSETS.index(charset) << 1 | int(whitespace)]) + body)


def xml_decoder(name, body, charset=None):
    """FuzzXMLBodyDecoder: options byte = charset index."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    write("FuzzXMLBodyDecoder", name, bytes([CHARSETS.index(charset)]) + body)


SOAP_TYPES = ["text/xml", "application/soap+xml", "text/xml; charset=utf-8",
              "application/soap+xml; charset=utf-16", "text/xml; charset=iso-8859-1"]


def soap(name, body, content_type="text/xml"):
    """FuzzSOAP: options byte = Content-Type index."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    write("FuzzSOAP", name, bytes([SOAP_TYPES.index(content_type)]) + body)


# --- XML documents shared by the XML targets ---------------------------------------------
CATALOG = ('<?xml version="1.0" encoding="UTF-8"?>\n<catalog>\n  <name>Books &amp; more</name>\n  <count>2</count>\n'
           '  <active>true</active>\n  <book id="b1"><title>Dune</title><price>9.99</price><tags>sf</tags><tags>classic</tags></book>\n'
           '  <book id="b2"><title><![CDATA[<Neuromancer>]]></title><price>1e2</price></book>\n'
           '  <meta><isbn>123</isbn><lang>en</lang></meta>\n</catalog>\n')
XXE = '<?xml version="1.0"?>\n<!DOCTYPE catalog [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<catalog><name>&xxe;</name></catalog>'
LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">'
          '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;">]>\n<lolz>&lol3;</lolz>')
# The issue 9 attack: a DOCTYPE in UTF-16LE without a byte-order mark, served as an 8-bit charset.
ENTITY_UTF16 = ('<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "' + "y" * 64 + '">]><a>' + "&x;" * 32 + "</a>").encode("utf-16-le")
NAMESPACES = ('<r xmlns="urn:default" xmlns:p="urn:p"><p:a p:attr="1" b=\'2\'>t&#x41;&#65;&lt;&gt;&quot;&apos;</p:a>'
              '<!-- comment --><?pi data?><p:b xmlns:p="urn:other"/></r>')
MIXED = "<p>  <b>bold</b> <i>italic</i>\n\ttext  </p>"
LATIN1 = '<?xml version="1.0" encoding="ISO-8859-1"?><name>Fran\xe7ois M\xfcller</name>'.encode("latin-1")
CP1252 = '<?xml version="1.0" encoding="windows-1252"?><q>\x93quoted\x94 \x80</q>'.encode("latin-1")
DEEP_200 = "<a>" * 200 + "x" + "</a>" * 200
WIDE_ATTRS = "<a " + " ".join('k%d="v%d"' % (i, i) for i in range(50)) + "/>"

xml_tree("catalog-utf8", CATALOG, "utf-8")
xml_tree("catalog-no-charset", CATALOG)
xml_tree("catalog-utf16le-bom", b"\xff\xfe" + CATALOG.encode("utf-16-le"))
xml_tree("catalog-utf16be-bom-declared-utf8", b"\xfe\xff" + CATALOG.encode("utf-16-be"), "utf-8")
xml_tree("catalog-utf32-bom", b"\xff\xfe\x00\x00" + CATALOG.encode("utf-32-le"))
xml_tree("catalog-utf16-sniffed", CATALOG.encode("utf-16-le"))
xml_tree("xxe", XXE, "utf-8")
xml_tree("billion-laughs", LAUGHS)
xml_tree("entity-utf16le-no-bom-as-utf8", ENTITY_UTF16, "utf-8")
xml_tree("entity-utf16le-no-bom-as-latin1", ENTITY_UTF16, "iso-8859-1")
xml_tree("entity-utf16le-no-bom-as-ascii", ENTITY_UTF16, "us-ascii")
xml_tree("entity-utf16be-no-bom-as-utf8", ('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>').encode("utf-16-be"), "utf-8")
xml_tree("namespaces", NAMESPACES, "utf-8")
xml_tree("mixed-whitespace-kept", MIXED, "utf-8", whitespace=True)
xml_tree("mixed-whitespace-dropped", MIXED, "utf-8")
xml_tree("latin1-declared", LATIN1)
xml_tree("windows-1252", CP1252, "windows-1252")
xml_tree("invalid-utf8", b"<a>\xc3\x28\xff</a>", "utf-8")
xml_tree("nul-in-utf8", b"<a>x\x00y</a>", "utf-8")
xml_tree("deep-200", DEEP_200, "utf-8")
xml_tree("wide-attributes", WIDE_ATTRS, "utf-8")
xml_tree("only-comment", "<?xml version='1.0'?><!-- nothing -->")
xml_tree("empty", "")
xml_tree("unknown-charset", "<a/>", "ebcdic-fuzz")
xml_tree("declaration-standalone", '<?xml version="1.1" encoding="utf-8" standalone="yes"?><a x="&#10;&#9;"/>')
# libxml2 reads version "1.", which the writer refuses: the parser refuses it too now.
xml_tree("regression-version-no-minor", '<?xml version="1." standalone="yes"?><a x="&#10;&#9;"/>')
xml_tree("mismatched-tags", "<a>\n<b>\n</a>", "utf-8")

# Found by fuzzing, crash until CourierXML keeps them from FoundationXML (see Fuzz/README.md):
# a processing instruction without data makes FoundationXML call strlen(NULL) (SIGSEGV on Linux);
# a declaration Courier does not rewrite but libxml2 reads switches libxml2 to UTF-7 (SIGSEGV).
PI_WITHOUT_DATA = "<a><?foo?></a>"
UTF7_DECLARATION = b'<?xml version="1.0" encoding="UTF-7" \x01?><a/>'
xml_tree("regression-pi-without-data", PI_WITHOUT_DATA, "utf-8")
xml_tree("regression-utf7-declaration", UTF7_DECLARATION, "utf-8")
# Leading 00 00 00 3C: libxml2 guesses UCS-4 and dereferences NULL (SIGSEGV), with no charset
# or charset=utf-8.
UCS4_GUESS = b"\x00\x00\x00<c<<<<<"
xml_tree("regression-ucs4-guess", UCS4_GUESS)
xml_decoder("regression-ucs4-guess", UCS4_GUESS, "utf-8")
xml_decoder("regression-pi-without-data", PI_WITHOUT_DATA, "utf-8")
xml_decoder("regression-utf7-declaration", UTF7_DECLARATION, "utf-8")

xml_decoder("catalog", CATALOG, "utf-8")
xml_decoder("catalog-no-charset", CATALOG)
xml_decoder("catalog-utf16le-bom", b"\xff\xfe" + CATALOG.encode("utf-16-le"), "utf-16")
xml_decoder("flat-dictionary", "<m><a>1</a><b>two</b><c/></m>", "utf-8")
xml_decoder("wrong-types", "<catalog><count>many</count><active>maybe</active><book><price>NaN</price></book></catalog>", "utf-8")
xml_decoder("xxe", XXE, "utf-8")
xml_decoder("entity-utf16le-no-bom-as-utf8", ENTITY_UTF16, "utf-8")
xml_decoder("entity-utf16le-no-bom-as-latin1", ENTITY_UTF16, "iso-8859-1")
xml_decoder("deep-200", DEEP_200, "utf-8")
xml_decoder("latin1", LATIN1, "iso-8859-1")
xml_decoder("empty", "", "utf-8")

SOAP11 = ('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">'
          '<soap:Header><t:Trace xmlns:t="urn:trace">1</t:Trace></soap:Header><soap:Body>'
          '<m:GetPriceResponse xmlns:m="urn:stock"><m:Price>1.90</m:Price><m:Currency>EUR</m:Currency>'
          '<m:Items>a</m:Items><m:Items>b</m:Items></m:GetPriceResponse></soap:Body></soap:Envelope>')
SOAP12 = ('<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>'
          '<GetPriceResponse xmlns="urn:stock"><Price>3</Price></GetPriceResponse></env:Body></env:Envelope>')
FAULT11 = ('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>'
           '<faultcode>soap:Server</faultcode><faultstring xml:lang="en">Out of pears</faultstring>'
           '<faultactor>urn:actor</faultactor><detail><e:Stock xmlns:e="urn:e">0</e:Stock></detail>'
           '</soap:Fault></soap:Body></soap:Envelope>')
FAULT12 = ('<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:rpc="http://www.w3.org/2003/05/soap-rpc">'
           '<env:Body><env:Fault><env:Code><env:Value>env:Sender</env:Value><env:Subcode><env:Value>rpc:BadArguments</env:Value>'
           '<env:Subcode><env:Value>x:Deeper</env:Value></env:Subcode></env:Subcode></env:Code>'
           '<env:Reason><env:Text xml:lang="en">Bad</env:Text><env:Text xml:lang="fr">Mauvais</env:Text></env:Reason>'
           '<env:Node>urn:node</env:Node><env:Role>urn:role</env:Role><env:Detail><d>1</d></env:Detail>'
           '</env:Fault></env:Body></env:Envelope>')
soap("soap11-payload", SOAP11)
soap("soap12-payload", SOAP12, "application/soap+xml")
soap("soap11-fault", FAULT11, "text/xml; charset=utf-8")
soap("soap12-fault", FAULT12, "application/soap+xml")
soap("soap11-utf16", b"\xff\xfe" + SOAP11.encode("utf-16-le"), "application/soap+xml; charset=utf-16")
soap("no-body", '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header/></soap:Envelope>')
soap("empty-body", '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>')
soap("not-an-envelope", "<Envelope><Body><x/></Body></Envelope>")
soap("wrong-namespace-body", '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><Body xmlns="urn:x"><a/></Body></s:Envelope>')
soap("entity-utf16le-no-bom-as-latin1", ENTITY_UTF16, "text/xml; charset=iso-8859-1")
soap("xxe", XXE.replace("catalog", "soap:Envelope"), "text/xml")
soap("regression-pi-without-data", SOAP11.replace("<soap:Body>", "<soap:Body><?foo?>"), "text/xml")

# --- OAuth2 --------------------------------------------------------------------------------
T = "FuzzOAuth2TokenResponse"
write(T, "full", '{"access_token":"at-new","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-new","scope":"read write"}')
write(T, "minimal", '{"access_token":"a","token_type":"bearer"}')
write(T, "expires-as-string", '{"access_token":"a","token_type":"Bearer","expires_in":" 3599.5 "}')
write(T, "scope-array", '{"access_token":"a","token_type":"DPoP","scope":["a","b"],"refresh_token":null}')
write(T, "bom", b'\xef\xbb\xbf{"access_token":"a","token_type":"Bearer","expires_in":1e3}')
write(T, "control-in-token", '{"access_token":"a\\r\\nX-Injected: 1","token_type":"Bearer"}')
write(T, "bad-token-type", '{"access_token":"a","token_type":"Bearer token"}')
write(T, "negative-expiry", '{"access_token":"a","token_type":"Bearer","expires_in":-1}')
write(T, "huge-expiry", '{"access_token":"a","token_type":"Bearer","expires_in":1e309}')
write(T, "nul-escape", '{"access_token":"\\u0000","token_type":"Bearer"}')
write(T, "duplicate-keys", '{"access_token":"a","access_token":"b","token_type":"Bearer"}')
write(T, "deep-array", '{"access_token":"a","token_type":"Bearer","scope":' + "[" * 300 + "]" * 300 + "}")
write(T, "not-an-object", '["access_token"]')
write(T, "truncated", '{"access_token":"a","tok')
write(T, "regression-empty-scope-entry", '{"access_token":"a","token_type":"DPInt","scope":[""]}')
write(T, "empty", "  \r\n")
write(T, "error-body", '{"error":"invalid_grant","error_description":"revoked"}')
E = "FuzzOAuth2ErrorBody"
write(E, "full", '{"error":"invalid_grant","error_description":"The refresh token was revoked","error_uri":"https://example.com/e"}')
write(E, "code-only", '{"error":"invalid_client"}')
write(E, "wrong-types", '{"error":"invalid_scope","error_description":42,"error_uri":["x"]}')
write(E, "code-not-string", '{"error":1}')
write(E, "empty-code", '{"error":""}')
write(E, "bom", b'\xef\xbb\xbf{"error":"invalid_request"}')
write(E, "html", "<html><body>502 Bad Gateway</body></html>")
write(E, "unicode", '{"error":"invalid_grant","error_description":"caf\\u00e9 \\ud83d\\ude00 \\ud800"}')
write(E, "deep", '{"error":"x","extra":' + '{"a":' * 200 + "1" + "}" * 200 + "}")
D = "FuzzDeviceAuthorizationResponse"
write(D, "full", '{"device_code":"GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS","user_code":"WDJB-MJHT",'
      '"verification_uri":"https://example.com/device","verification_uri_complete":"https://example.com/device?user_code=WDJB-MJHT",'
      '"expires_in":1800,"interval":5}')
write(D, "minimal", '{"device_code":"d","user_code":"u","verification_uri":"https://e.com/d","expires_in":600}')
write(D, "google", '{"device_code":"d","user_code":"u","verification_url":"https://www.google.com/device","expires_in":"1800","interval":"5"}')
write(D, "loopback-http", '{"device_code":"d","user_code":"u","verification_uri":"http://127.0.0.1:8080/d","expires_in":1.5,"interval":0}')
write(D, "http-public", '{"device_code":"d","user_code":"u","verification_uri":"http://evil.example/d","expires_in":600}')
write(D, "escape-in-user-code", '{"device_code":"d","user_code":"\\u001b[2J","verification_uri":"https://e.com/d","expires_in":600}')
write(D, "negative-interval", '{"device_code":"d","user_code":"u","verification_uri":"https://e.com/d","expires_in":600,"interval":-1}')
write(D, "huge-expiry", '{"device_code":"d","user_code":"u","verification_uri":"https://e.com/d","expires_in":1e309}')
write(D, "error-body", '{"error":"invalid_client"}')
write(D, "bom", b'\xef\xbb\xbf{"device_code":"d","user_code":"u","verification_uri":"https://e.com/d","expires_in":600}')
write(D, "truncated", '{"device_code":"d","user_')
M = "FuzzAuthorizationServerMetadata"
write(M, "full", '{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/authorize",'
      '"token_endpoint":"https://auth.example.com/token","device_authorization_endpoint":"https://auth.example.com/device",'
      '"revocation_endpoint":"https://auth.example.com/revoke","jwks_uri":"https://auth.example.com/jwks",'
      '"scopes_supported":["openid"],"response_types_supported":["code"],"grant_types_supported":["authorization_code"],'
      '"code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["none"],'
      '"authorization_response_iss_parameter_supported":true}')
write(M, "issuer-only", '{"issuer":"https://auth.example.com"}')
write(M, "other-issuer", '{"issuer":"https://auth.example.com/","token_endpoint":"https://auth.example.com/token"}')
write(M, "http-endpoint", '{"issuer":"https://auth.example.com","token_endpoint":"http://auth.example.com/token"}')
write(M, "loopback", '{"issuer":"http://[::1]:8080","token_endpoint":"http://localhost:8080/token"}')
write(M, "userinfo-endpoint", '{"issuer":"https://a.example","revocation_endpoint":"https://u:p@a.example/r#f"}')
write(M, "wrong-types", '{"issuer":"https://a.example","scopes_supported":"openid","authorization_response_iss_parameter_supported":"true"}')
write(M, "bom", b'\xef\xbb\xbf{"issuer":"https://auth.example.com"}')
write(M, "not-json", "<html>404</html>")

# --- Retry-After: 8 bytes of "now" (big-endian seconds after 1900-01-01, modulo the years up to
# 9999), then the value ---
EPOCH_1900 = 2_208_988_800
def now(seconds_since_1970):
    return struct.pack(">Q", seconds_since_1970 + EPOCH_1900)
NOW_2026 = now(1_780_000_000)
R = "FuzzRetryAfter"
for name, value in [("seconds", "120"), ("padded-seconds", " \t30 "), ("zero", "0"), ("huge", "99999999999999999999"),
                    ("negative", "-1"), ("imf-fixdate", "Sun, 06 Nov 1994 08:49:37 GMT"),
                    ("rfc850", "Sunday, 06-Nov-94 08:49:37 GMT"), ("asctime", "Sun Nov  6 08:49:37 1994"),
                    ("leap-second", "Wed, 31 Dec 2025 23:59:60 GMT"), ("feb-29", "Tue, 29 Feb 2028 00:00:00 GMT"),
                    ("feb-30", "Wed, 30 Feb 2028 00:00:00 GMT"), ("lowercase", "sun, 06 nov 1994 08:49:37 gmt"),
                    ("non-ascii", "１２０"), ("soon", "soon")]:
    write(R, name, NOW_2026 + value.encode("utf-8"))
write(R, "rfc850-now-1970", now(0) + b"Thursday, 01-Jan-70 00:00:00 GMT")
write(R, "rfc850-now-9999", now(253_402_300_799) + b"Monday, 01-Jan-01 00:00:00 GMT")
write(R, "rfc850-now-1900", now(-EPOCH_1900) + b"Monday, 01-Jan-01 00:00:00 GMT")

# --- Problem details: 1 byte of Content-Type choice (0 = application/problem+json), then the body ---
P = "FuzzProblemDetails"
def problem(name, body, choice=0):
    write(P, name, bytes([choice]) + body.encode("utf-8"))
problem("rfc9457-example", '{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.",'
        '"detail":"Your current balance is 30, but that costs 50.","instance":"/account/12345/msgs/abc",'
        '"balance":30,"accounts":["/account/12345","/account/67890"]}')
problem("wrong-types", '{"type":1,"title":["x"],"status":"400","detail":null,"instance":{}}')
problem("status-float", '{"status":400.5,"nested":{"a":1.5,"b":"x"}}')
problem("with-parameters", '{"title":"t"}', 1)
problem("plain-json", '{"title":"t"}', 2)
problem("not-an-object", '"about:blank"')
problem("deep", '{"a":' + "[" * 400 + "]" * 400 + "}")
problem("big-numbers", '{"status":99999999999999999999999,"balance":1e400}')
# Crashed extensions(as:) before the status was checked (Tests/CourierTests/FuzzRegressionTests.swift).
problem("regression-status-99999", '{"status":99999,"balance":1e400}')

# --- BaseURL and URLPath (the same text goes to both) ---------------------------------------
B = "FuzzBaseURL"
for i, text in enumerate(["https://api.example.com", "http://127.0.0.1:8080", "http://[::1]:8080/", "HTTPS://API.Example.COM/",
                          "https://user:pw@api.example.com", "http://host:65536", "http://host:0", "http://256.1.1.1",
                          "https://xn--bcher-kva.example", "https://b\u00fccher.example", "https://a..b", "https://-a.example",
                          "ftp://example.com", "https://example.com/path?q#f", "http://[fe80::1%25eth0]:80",
                          "/v1/users/%41", "/a/%2e%2E/b", "/a//b", "/", "/users/:id@x!$&'()*+,;=", "/caf\u00e9", "/a/%zz"]):
    write(B, "seed-%02d" % i, text)

# --- Token file: magic "CRTK", version 1, key derivation id, [salt(16) rounds(4)], box ---------
F = "FuzzTokenFileFormat"
BOX = bytes(range(12)) + b"ciphertext" + bytes(16)
write(F, "raw-key", b"CRTK\x01\x01" + BOX)
write(F, "passphrase", b"CRTK\x01\x02" + bytes(range(16)) + struct.pack(">I", 600_000) + BOX)
write(F, "wrong-version", b"CRTK\x02\x01" + BOX)
write(F, "unknown-derivation", b"CRTK\x01\x07" + BOX)
write(F, "short-box", b"CRTK\x01\x01" + bytes(27))
write(F, "truncated-header", b"CRTK\x01\x02" + bytes(10))
write(F, "magic-prefix", b"CR")
write(F, "json-plaintext", b'{"accessToken":"at"}')
write(F, "empty", b"")

# --- Query strings: option bytes, items, parameters (see FuzzQueryString.swift's readers) ---
Q = "FuzzQueryString"
def qstring(text):
    data = text.encode("utf-8")
    return bytes([len(data)]) + data

def qvalue(kind, payload=b""):
    return bytes([kind]) + payload

def options(array=0, dot=False, space=0, plus=0, mask=0):
    # arrayFormat, dictionaryFormat (odd = subscripted), space, plus, 3 mask bytes
    return bytes([array, 0 if dot else 1, space, plus, (mask >> 16) & 0xFF, (mask >> 8) & 0xFF, mask & 0xFF])

items = bytes([2]) + qstring("q") + b"\x01" + qstring("swift & linux = fun+") + qstring("verbose") + b"\x00"
string = lambda text: qvalue(0, qstring(text))
params = (bytes([3])
          + qstring("include") + qvalue(6, bytes([2]) + string("fuzzy") + string("not, mean"))
          + qstring("page") + qvalue(7, bytes([2]) + qstring("size") + qvalue(1, struct.pack(">q", 20))
                                     + qstring("after") + string("x/1?#[]"))
          + qstring("ratio") + qvalue(2, struct.pack(">d", 0.1))
          + b"\x01")
for array in range(4):
    for space, plus in [(0, 0), (1, 2), (1, 1)]:
        write(Q, "mixed-array%d-space%d-plus%d" % (array, space, plus),
              options(array=array, space=space, plus=plus, mask=0b1010101) + items + params)
write(Q, "dot-notation-all-reserved-encoded", options(dot=True, mask=0xFFF) + b"\x00" + params)
write(Q, "nan", options() + b"\x00" + bytes([1]) + qstring("n") + qvalue(2, struct.pack(">d", float("nan"))) + b"\x01")
write(Q, "decimal-nan", options() + b"\x00" + bytes([1]) + qstring("d") + qvalue(3, bytes(8) + b"\x01") + b"\x01")
write(Q, "utf8-and-nulls", options(array=3) + b"\x01" + qstring("caf\u00e9") + b"\x01" + qstring("\u2713 \x00")
      + bytes([1]) + qstring("k") + qvalue(6, bytes([3]) + qvalue(5) + string("a,b") + qvalue(4, b"\x01")) + b"\x01")
# regression-plus-before-combining-mark is the raw input CI's run found (kept as written by
# libFuzzer, not generated here): a "+" followed by U+06E4, which the target's model missed.
# --- Authorization code flow -----------------------------------------------------------------
# FuzzAuthorizationResponse: options byte (bit 0 issuer, bit 1 requires iss, bit 2 private-use
# scheme redirect URI), then the redirect URL. The expected state is fuzzSTATE-0123456789abcdef.
A = "FuzzAuthorizationResponse"
LOOP = "http://127.0.0.1:53682/callback"
GOOD = "state=fuzzSTATE-0123456789abcdef"
ISS = "iss=https%3A%2F%2Fissuer.example"
def auth_response(name, url, options=0):
    write(A, name, bytes([options]) + url.encode("utf-8"))
auth_response("rfc6749-code", LOOP + "?code=SplxlOBeZQQYbYS6WxSbIA&" + GOOD)
auth_response("code-with-iss-required", LOOP + "?code=c&" + GOOD + "&" + ISS, options=3)
auth_response("iss-missing-required", LOOP + "?code=c&" + GOOD, options=3)
auth_response("iss-other", LOOP + "?code=c&" + GOOD + "&iss=https%3A%2F%2Fevil.example", options=1)
auth_response("denied", LOOP + "?error=access_denied&error_description=The+user+said+no&error_uri=https%3A%2F%2Fe&" + GOOD)
auth_response("forged-error-no-state", LOOP + "?error=access_denied&error_description=Call%20this%20number")
auth_response("state-mismatch", LOOP + "?code=c&state=fuzzSTATE-0123456789abcdeg")
auth_response("duplicate-state", LOOP + "?code=c&state=x&" + GOOD)
auth_response("duplicate-code", LOOP + "?code=a&code=b&" + GOOD)
auth_response("bad-escape", LOOP + "?code=%zz&" + GOOD)
auth_response("invalid-utf8", LOOP + "?code=%C3%28&" + GOOD)
auth_response("other-port", "http://127.0.0.1:53683/callback?code=c&" + GOOD)
auth_response("fragment", LOOP + "#code=c&" + GOOD)
auth_response("private-use-scheme", "com.example.app:/callback?code=c&" + GOOD, options=4)
auth_response("oversized", LOOP + "?code=c&" + GOOD + "&pad=" + "a" * 8200)

# FuzzLoopbackCallback: what follows `GET /callback` on the request line (a query, usually).
C = "FuzzLoopbackCallback"
write(C, "browser-redirect", "?code=SplxlOBeZQQYbYS6WxSbIA&" + GOOD)
write(C, "forged-state", "?code=x&state=forged")
write(C, "forged-error", "?error=access_denied&state=forged")
write(C, "denied", "?error=access_denied&error_description=The%20user%20declined&" + GOOD)
write(C, "no-state", "?code=x")
write(C, "two-states", "?code=x&" + GOOD + "&state=other")
write(C, "state-only", "?" + GOOD)
write(C, "empty-query", "?")
write(C, "bad-escape", "?code=%zz&" + GOOD)
write(C, "plus-and-escapes", "?code=a+b%2Bc&state=fuzzSTATE%2D0123456789abcdef")
write(C, "fragment", "?code=x&" + GOOD + "#frag")
write(C, "longer-path", "/more?code=x&" + GOOD)
write(C, "empty-names", "?&=&code=&state=&" + GOOD)

# FuzzLoopbackRequest: the bytes a connection sends to the loopback receiver.
L = "FuzzLoopbackRequest"
write(L, "firefox-redirect", "GET /callback?code=SplxlOBeZQQYbYS6WxSbIA&" + GOOD + " HTTP/1.1\r\nHost: 127.0.0.1:53682\r\n"
      "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
      "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\n"
      "Accept-Encoding: gzip, deflate, br, zstd\r\nConnection: keep-alive\r\nUpgrade-Insecure-Requests: 1\r\n"
      "Sec-Fetch-Dest: document\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-Site: cross-site\r\n\r\n")
write(L, "favicon", "GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1:53682\r\n\r\n")
write(L, "post", "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
write(L, "bare-lf", "GET /callback?code=c HTTP/1.0\n\n")
write(L, "absolute-form", "GET http://127.0.0.1:53682/callback?code=c HTTP/1.1\r\n\r\n")
write(L, "asterisk", "OPTIONS * HTTP/1.1\r\n\r\n")
write(L, "folded-header", "GET /callback HTTP/1.1\r\nX: a\r\n b\r\n\r\n")
write(L, "nul-in-header", b"GET /callback HTTP/1.1\r\nX: a\x00b\r\n\r\n")
write(L, "incomplete", "GET /callback?code=c HTTP/1.1\r\nHost: 127.0.0.1")
write(L, "http2-preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
write(L, "tls-hello", bytes([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]) + bytes(32))
write(L, "oversized", "GET /callback HTTP/1.1\r\nX-Pad: " + "a" * 8200 + "\r\n\r\n")

# FuzzServerSentEvents: byte 0 = line limit index, byte 1 = event data limit index (0..4: 1, 4,
# 16, 64, default), bytes 2-9 = the seed of the split points, then the stream.
S = "FuzzServerSentEvents"


def sse(name, stream, line_limit=4, event_limit=4, seed=7):
    if isinstance(stream, str):
        stream = stream.encode("utf-8")
    write(S, name, bytes([line_limit, event_limit]) + struct.pack(">Q", seed) + stream)


sse("whatwg-example", "data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\n"
    "data: This is the third message.\n\n")
sse("typed-events", "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n")
sse("ids-and-retry", ": comment\nid: 1\nretry: 10000\ndata: a\n\nid\ndata: b\n\nid: x\x00y\nretry: 1.5\ndata\n\n")
sse("crlf-and-cr", "\ufeffdata: a\r\ndata: b\r\n\r\ndata: c\r\rdata:d\n\r\n", seed=12345)
sse("bom-twice", "\ufeff\ufeffdata: x\n\ndata: y\n\n")
sse("partial-bom", b"\xef\xbbdata: x\n\n\xef\ndata: y\n\n")
sse("malformed-utf8", b"data: \xff\xe2\x82\ndata: \xac\xf0\x9f\x98\x80\n\n")
sse("small-limits", "data: 1234567890\n\n" + "x" * 80 + "\n", line_limit=1, event_limit=1)
sse("no-dispatch", "event: e\n\nid: 5\n\nretry: 99999999999999999999999\n\ndata: unfinished")

# FuzzNetlink: one rtnetlink datagram, little-endian (the host order of x86_64, where CI runs).
N = "FuzzNetlink"


def nl_align(data):
    return data + bytes((4 - len(data) % 4) % 4)


def nl_attr(kind, value):
    return nl_align(struct.pack("<HH", 4 + len(value), kind) + value)


def nl_message(kind, body, nl_flags=0, seq=0, pid=0):
    return nl_align(struct.pack("<IHHII", 16 + len(body), kind, nl_flags, seq, pid) + body)


def nl_link(index, name, flags, deleted=False, **header):
    body = struct.pack("<BBHiII", 0, 0, 1, index, flags, 0)
    body += nl_attr(3, name.encode() + b"\0") + nl_attr(16, bytes([6 if flags & 0x40 else 2]))
    return nl_message(17 if deleted else 16, body, **header)


def nl_address(index, address, prefix, flags=0x80, deleted=False, **header):
    family = 2 if len(address) == 4 else 10
    body = struct.pack("<BBBBi", family, prefix, flags & 0xFF, 0, index)
    body += nl_attr(1, address) + nl_attr(2, address) + nl_attr(8, struct.pack("<I", flags))
    return nl_message(21 if deleted else 20, body, **header)


def nl_route(oif=None, gateway=None, family=2, dst_len=0, kind=1, table=254, priority=None, hops=None, deleted=False, **header):
    body = struct.pack("<BBBBBBBBI", family, dst_len, 0, 0, min(table, 255), 3, 0, kind, 0)
    body += nl_attr(15, struct.pack("<I", table))
    if priority is not None:
        body += nl_attr(6, struct.pack("<I", priority))
    if oif is not None:
        body += nl_attr(4, struct.pack("<i", oif))
    if gateway is not None:
        body += nl_attr(5, gateway)
    if hops is not None:
        paths = b""
        for hop_oif, hop_gateway in hops:
            attributes = nl_attr(5, hop_gateway) if hop_gateway else b""
            paths += nl_align(struct.pack("<HBBi", 8 + len(attributes), 0, 0, hop_oif) + attributes)
        body += nl_attr(9, paths)
    return nl_message(25 if deleted else 24, body, **header)


def nl_done(seq, pid, code=0):
    return nl_message(3, struct.pack("<i", code), nl_flags=2, seq=seq, pid=pid)


UP, LOOPBACK = 0x10041, 0x49
LINK_LOCAL = bytes([0xFE, 0x80]) + bytes(13) + bytes([7])
write(N, "links-dump", nl_link(1, "lo", LOOPBACK, nl_flags=2, seq=1, pid=77) + nl_link(2, "eth0", UP, nl_flags=2, seq=1, pid=77) + nl_done(1, 77))
write(N, "addresses-dump", nl_address(1, bytes([127, 0, 0, 1]), 8, flags=0x80, seq=2, pid=77)
      + nl_address(2, bytes([192, 168, 1, 20]), 24, seq=2, pid=77) + nl_address(2, LINK_LOCAL, 64, flags=0x40, seq=2, pid=77)
      + nl_done(2, 77))
write(N, "routes-dump", nl_route(oif=2, gateway=bytes([192, 168, 1, 1]), seq=3, pid=77, nl_flags=2)
      + nl_route(oif=2, dst_len=24, seq=3, pid=77, nl_flags=2) + nl_route(oif=2, gateway=LINK_LOCAL, family=10, priority=1024, seq=3, pid=77, nl_flags=2)
      + nl_done(3, 77))
write(N, "typical-host", nl_link(1, "lo", LOOPBACK) + nl_link(2, "eth0", UP) + nl_address(2, bytes([10, 0, 0, 2]), 24)
      + nl_route(oif=2, gateway=bytes([10, 0, 0, 1])))
write(N, "multipath", nl_link(2, "eth0", UP) + nl_link(3, "eth1", 0x1) + nl_address(2, bytes([10, 0, 0, 2]), 24)
      + nl_route(hops=[(2, bytes([10, 0, 0, 1])), (3, bytes([10, 0, 1, 1])), (4, None)], table=1000, priority=10))
write(N, "carrier-lost", nl_link(2, "eth0", 0x1))
write(N, "deletions", nl_route(oif=2, gateway=bytes([10, 0, 0, 1]), deleted=True) + nl_address(2, bytes([10, 0, 0, 2]), 24, deleted=True)
      + nl_link(2, "eth0", 0, deleted=True))
write(N, "replace", nl_route(oif=3, gateway=bytes([10, 1, 0, 1]), nl_flags=0x100))
write(N, "blackhole-and-unreachable", nl_route(kind=6) + nl_route(oif=1, family=10, kind=7))
write(N, "done-error-overrun-noop", nl_done(4, 77, code=-16) + nl_message(2, struct.pack("<i", -1) + bytes(16), seq=5, pid=77)
      + nl_message(4, b"") + nl_message(1, b""))
write(N, "done-without-code", struct.pack("<IHHII", 16, 3, 2, 1, 77))
write(N, "unpadded-last", nl_link(3, "wlan0", UP) + struct.pack("<IHHII", 37, 16, 0, 0, 0) + struct.pack("<BBHiII", 0, 0, 1, 4, UP, 0)
      + struct.pack("<HH", 5, 16) + bytes([6]))
write(N, "long-name", nl_link(5, "sixteen-chars-xx", UP))
write(N, "short-length", struct.pack("<IHHII", 8, 16, 0, 0, 0))
write(N, "attribute-overrun", nl_message(16, struct.pack("<BBHiII", 0, 0, 1, 2, UP, 0) + struct.pack("<HH", 200, 3) + b"eth0"))
write(N, "bad-next-hop", nl_route(hops=[]) + nl_message(24, struct.pack("<BBBBBBBBI", 2, 0, 0, 0, 254, 3, 0, 1, 0)
      + nl_attr(9, struct.pack("<HBBi", 4, 0, 0, 2))))
# FuzzFixtureFormat: byte 0 even = a fixture file follows; odd = a response to record follows
# (status choice, reason, optional media type choice, field count, fields as name choice + value,
# decoded flag, body; see FuzzFixtureFormat.swift).
F = "FuzzFixtureFormat"


def fixture_file(name, text):
    if isinstance(text, str):
        text = text.encode("utf-8")
    write(F, name, b"\x00" + text)


def recorded(name, status, reason, media, fields, decoded, body):
    """fields: (name index, value) pairs; name indexes follow fieldNames in the target."""
    data = bytes([1, status % 256, len(reason)]) + reason.encode()
    data += bytes([1, media]) if media is not None else bytes([0])
    data += bytes([len(fields)])
    for index, value in fields:
        data += bytes([index, len(value)]) + value.encode()
    data += bytes([int(decoded)]) + body.encode()
    write(F, name, data)


fixture_file("json", "HTTP/1.1 200 OK\nContent-Type: application/json\nX-Request-Id: 1\n\n{\"id\": 42, \"name\": \"Ada\"}\n")
fixture_file("crlf-content-length", "HTTP/1.1 201 Created\r\nContent-Length: 5\r\nLocation: /users/7\r\n\r\nhello\r\n")
fixture_file("curl-continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/2 204\r\nvary: accept\r\nVary: origin\r\n\r\n")
fixture_file("bom-binary", b"\xef\xbb\xbfHTTP/1.1 200 OK\nContent-Type: image/png\n\n\x89PNG\r\n\x1a\n\x00\xff")
fixture_file("head-response", "HTTP/1.1 200 OK\nContent-Length: 1234\n\n")
fixture_file("status-only", "HTTP/1.0 404")
fixture_file("regression-informational-at-end", "HTTP/1.0 106")
fixture_file("regression-combining-slash", "/\u0305a/b?\u0301c=1")
fixture_file("no-colon", "HTTP/1.1 200 OK\nContent-Type application/json\n\n{}")
fixture_file("folded", "HTTP/1.1 200 OK\nX-A: 1\n  more\n\n")
fixture_file("length-mismatch", "HTTP/1.1 200 OK\nContent-Length: 3\n\nhello")
fixture_file("two-lengths", "HTTP/1.1 200 OK\nContent-Length: 5\nContent-Length: 6\n\nhello")
fixture_file("bad-status", "HTTP/1.1 2000 OK\n\n")
fixture_file("control-in-value", b"HTTP/1.1 200 OK\nX-A: a\x01b\n\n")
fixture_file("invalid-utf8", b"HTTP/1.1 200 \xc3\x28\n\n")
fixture_file("long-head", "HTTP/1.1 200 OK\n" + "X-Pad: " + "a" * 3000 + "\n\nbody")
recorded("json-secrets", 200, "OK", 0, [(3, "sid=s3cr3t; Path=/"), (4, "Bearer abc"), (5, "https://h/cb?code=c&state=s")], False,
         '{"access_token":"at","user":"ada"}')
recorded("gzip-decoded", 200, "", 2, [(2, "gzip"), (1, "12"), (6, "chunked"), (7, "keep-alive")], True, "plain text")
recorded("form", 201, "Created", 1, [(8, "k"), (9, "timeout=5"), (10, "t")], False, "access_token=x&scope=a+b")
recorded("head-length", 204, "No Content", None, [(1, "abc")], False, "")
recorded("control-reason", 500, "bad\r\nX-Injected: 1", 3, [(11, " padded\tvalue ")], False, '{"title":"x"}')

# FuzzContentRange: status index (200, 206, 416, 304), offset (8 bytes, big-endian), validator
# index (none, "v1", a date), announced length and recorded total (a flag byte, then 8 bytes when
# set), ETag index (none, "v1", "v2"), then the Content-Range value.
def content_range(name, value, status=1, offset=0, validator=1, announced=None, recorded=None, etag=1):
    data = bytes([status]) + struct.pack(">Q", offset) + bytes([validator])
    for number in (announced, recorded):
        data += bytes([0]) if number is None else bytes([1]) + struct.pack(">Q", number)
    write("FuzzContentRange", name, data + bytes([etag]) + value.encode("utf-8"))


content_range("resume", "bytes 500000-999999/1000000", offset=500000, announced=500000, recorded=1000000)
content_range("resume-unknown-total", "bytes 500000-999999/*", offset=500000, recorded=1000000)
content_range("regression-short-resume-star", "bytes 500000-500099/*", offset=500000, announced=100, recorded=1000000)
content_range("regression-short-resume-total", "bytes 500000-500099/500100", offset=500000, announced=100, recorded=1000000)
content_range("shifted", "bytes 500001-999999/1000000", offset=500000)
content_range("other-version", "bytes 10-19/20", offset=10, etag=2)
content_range("unsatisfied", "bytes */4096", status=2, offset=4096, recorded=4096)
content_range("unsatisfied-other-size", "bytes */4097", status=2, offset=4096)
content_range("full-answer", "", status=0, offset=1000, announced=5000)
content_range("not-modified", "bytes 0-0/1", status=3)
content_range("case-and-spaces", "  Bytes 5-9/10 ", offset=5)
content_range("overflow", "bytes 99999999999999999999-1/2", offset=1)
content_range("signs-and-hex", "bytes +1-0x2/-3", offset=1)
content_range("no-range", "", offset=1)
# Control characters in the value: HTTPTypes stores them as spaces, so the decision reads `bytes */4096`.
content_range("regression-control-characters", "\x00\x00\x00\x00\x01bytes */4096", status=2, offset=4096, recorded=4096, etag=0)

# FuzzDownloadState: the state file's bytes, as Courier writes them (JSONEncoder) and as others might.
S = "FuzzDownloadState"
write(S, "saved", '{"url":"https:\\/\\/api.example.com\\/file","validator":"\\"v1\\"","receivedBytes":1048576,'
      '"expectedBytes":4194304,"temporaryFile":"file:\\/\\/\\/tmp\\/.out.bin.courier-download"}')
write(S, "no-validator-no-total", '{"url":"https://api.example.com/file?access_token=s3cret","receivedBytes":0,'
      '"temporaryFile":"file:///tmp/.out.bin.courier-download"}')
write(S, "date-validator", '{"url":"https://h/f","validator":"Tue, 15 Nov 1994 08:12:31 GMT","receivedBytes":5,"expectedBytes":5,'
      '"temporaryFile":"file:///tmp/.f.courier-download"}')
write(S, "header-injection", '{"url":"https://h/f","validator":"\\"v1\\"\\r\\nX-Injected: 1","receivedBytes":5,'
      '"temporaryFile":"file:///tmp/.f.courier-download"}')
write(S, "negative-counts", '{"url":"https://h/f","validator":"\\"v1\\"","receivedBytes":-5,"expectedBytes":-1,'
      '"temporaryFile":"file:///tmp/.f.courier-download"}')
write(S, "more-than-expected", '{"url":"https://h/f","validator":"\\"v1\\"","receivedBytes":500100,"expectedBytes":500000,'
      '"temporaryFile":"file:///tmp/.f.courier-download"}')
write(S, "huge-numbers", '{"url":"https://h/f","receivedBytes":1e300,"expectedBytes":9223372036854775808,"temporaryFile":"/tmp/x"}')
write(S, "not-a-file-url", '{"url":"https://h/f","receivedBytes":1,"temporaryFile":"https://h/.f.courier-download"}')
write(S, "truncated", '{"url":"https://h/f","validator":"\\"v1\\"","receivedBy')
write(S, "wrong-types", '{"url":7,"validator":["a"],"receivedBytes":"5","temporaryFile":null}')

# FuzzCacheControl: two bytes choose the elapsed time (their product, in seconds); then the
# response's Cache-Control lines and, after the last line feed, the request's.
C = "FuzzCacheControl"
write(C, "max-age", b"\x03\x04" + b"max-age=60, public\n")
write(C, "two-lines-and-request", b"\x10\x10" + b"no-cache\nmax-age=5, must-revalidate\nmax-stale=100, min-fresh=3")
write(C, "invalid-max-age", b"\x00\x01" + b"max-age=ten\nmax-stale")
write(C, "duplicates", b"\x01\x01" + b"max-age=10, max-age=20, MAX-AGE=30\nonly-if-cached")
write(C, "quoted", b"\x02\x02" + b'no-cache="Set-Cookie, X-A", private="a\\"b", max-age="7"\n')
write(C, "saturating", b"\xff\xff" + b"max-age=999999999999999999999999, stale-while-revalidate=99999999999\nstale-if-error=4294967296")
write(C, "unterminated", b"\x05\x05" + b'max-age=1, foo="abc, no-store\nno-store "x"')
write(C, "too-many", b"\x01\x01" + ", ".join(f"x{i}" for i in range(80)).encode() + b"\n")


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def cstring(text):
    if isinstance(text, str):
        text = text.encode("utf-8")
    return struct.pack(">I", len(text)) + text


def cvariant(values, nothing=False):
    out = bytes([1 if nothing else 0]) + struct.pack(">I", len(values))
    for name, value in values:
        out += cstring(name) + bytes([0 if value is None else 1]) + cstring(value or "")
    return out


def cache_entry(url, partition, status, reason, fields, body, variant=(), request_time=100.0, response_time=101.0):
    """CacheEntryCoding's layout (Sources/Courier/Pipeline/Cache/CacheEntryCoding.swift)."""
    out = b"CCE\x01" + struct.pack(">dd", request_time, response_time) + cstring(url) + cstring(partition)
    out += cvariant(list(variant)) + struct.pack(">H", status) + cstring(reason) + struct.pack(">I", len(fields))
    for name, value in fields:
        out += cstring(name) + cstring(value)
    out += struct.pack(">Q", len(body)) + body
    return out + struct.pack(">Q", fnv1a64(out))


# FuzzCacheEntry: an entry file's bytes.
E = "FuzzCacheEntry"
write(E, "ok", cache_entry("https://example.com/a", "", 200, "", [("Cache-Control", "max-age=60"), ("ETag", '"v1"')], b"hello"))
write(E, "variant-and-partition", cache_entry("https://example.com/a?q=1", "user-7", 404, "Not Found",
      [("Vary", "Accept"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")], b"", variant=[("accept", "text/html"), ("x-absent", None)]))
write(E, "bad-checksum", cache_entry("https://example.com/a", "", 200, "", [], b"body")[:-1] + b"\x00")
write(E, "truncated", cache_entry("https://example.com/a", "", 200, "", [("A", "b")], b"body")[:-9])
write(E, "huge-length", b"CCE\x01" + struct.pack(">dd", 1.0, 2.0) + struct.pack(">I", 0xFFFFFFFF))
# Built entries (0xFB, then what FuzzCacheEntry.builtEntry reads): 300 fields, 300 Vary values.
write(E, "built-small", b"\xFB" + bytes([1, 200, 1, 1, 2]) + b"body")
write(E, "built-wide", b"\xFB" + bytes([0, 7, 1, 5, 0, 1, 5]) + bytes(range(64)))
write(E, "other-version", b"CCE\x02" + cache_entry("https://example.com/a", "", 200, "", [], b"x")[4:])


def cache_file_id(url, partition, variant=()):
    return fnv1a64(cstring(url) + cstring(partition) + cvariant(list(variant)))


def cache_index(records, clean=1, bad_offset=None):
    """CacheIndexCoding's layout, version 2: fixed rows (file id, size, key offset, key length),
    then the key table; the checksum leaves out the clean byte (offset 4)."""
    rows, table = b"", b""
    for url, partition, variant, size in records:
        key = cstring(url) + cstring(partition) + cvariant(list(variant))
        offset = len(table) if bad_offset is None else bad_offset
        rows += struct.pack(">QQII", cache_file_id(url, partition, variant), size, offset, len(key))
        table += key
    out = b"CCI\x02" + bytes([clean]) + struct.pack(">I", len(records)) + rows + struct.pack(">I", len(table)) + table
    return out + struct.pack(">Q", fnv1a64(out[:4] + out[5:]))


# FuzzCacheIndex: an index file's bytes.
I = "FuzzCacheIndex"
THREE = [("https://example.com/1", "", (), 120), ("https://example.com/2", "p", (), 4096),
         ("https://example.com/3", "", (("accept", "a/b"), ("x-absent", None)), 77)]
write(I, "empty", cache_index([]))
write(I, "three", cache_index(THREE))
write(I, "three-not-clean", cache_index(THREE, clean=0))
write(I, "key-out-of-table", cache_index(THREE[:1], bad_offset=1000))
write(I, "huge-size", cache_index([("https://example.com/1", "", (), 1 << 63)]))
write(I, "huge-count", b"CCI\x02\x01" + struct.pack(">I", 0xFFFFFFFF) + b"\x00" * 12)
# Built indexes (0xFB, then what FuzzCacheIndex.openBuilt reads): sizes past Int.max in sum,
# duplicate ids, 300 Vary values.
write(I, "built-overflow", b"\xFB" + bytes([0, 8] + [1, 0, 1, 0, 0, 1, 1, 1, 6] * 8 + [1]))
write(I, "built-wide-vary", b"\xFB" + bytes([2, 3, 1, 1, 1, 5, 0, 1, 0, 1, 2]))
write(I, "version-1", b"CCI\x01" + struct.pack(">I", 1) + cstring("0000000000000001.entry") + cstring("u") + cstring("")
      + cvariant([]) + struct.pack(">Q", 1) + b"\x00" * 8)

print("seeds written under", ROOT)

# --- WebSocket frames: 2 bytes of message limit (0x8000: permessage-deflate negotiated), then
# frames of (header, length, payload); the header is FIN 0x80, RSV2 0x40, masked 0x20, RSV1
# (compressed) 0x10, opcode in the low 4 bits ---
W = "FuzzWebSocketFrames"
def frames(name, limit, *parts):
    out = struct.pack(">H", limit)
    for header, payload in parts:
        out += bytes([header, len(payload)]) + payload
    write(W, name, out)
frames("text", 1024, (0x81, b"hello"))
frames("binary", 1024, (0x82, bytes(range(16))))
frames("fragments", 1024, (0x01, b"frag"), (0x89, b"ping"), (0x00, b"ment"), (0x80, b"ed"))
frames("over-limit", 8, (0x02, b"12345"), (0x80, b"67890"))
frames("close-with-reason", 1024, (0x88, b"\x0f\xa1going"), (0x81, b"after"))
frames("close-bad-code", 1024, (0x88, b"\x03\xed"))
frames("bad-utf8", 1024, (0x81, b"\xc0\xaf"))
frames("reserved-bit", 1024, (0xC2, b"\xf3\x48"))
frames("masked", 1024, (0xA1, b"a"))
frames("continuation-first", 1024, (0x80, b"a"))
frames("compressed", 0x8000 | 1024, (0x91, b"abc"), (0x12, b"\x01\x02"), (0x80, b"\x03"))
frames("compressed-unnegotiated", 1024, (0x91, b"abc"))
frames("compressed-bomb", 0x8000 | 16, (0x92, b"\x07" * 8))
frames("compressed-continuation", 0x8000 | 1024, (0x11, b"a"), (0x90, b"b"))
write(W, "extension-answer", b"permessage-deflate; server_no_context_takeover; server_max_window_bits=\"10\"")

