// TEMPORARY until the redaction work lands: exact-list matching only.
extension Redaction {
    public func isSecret(headerName: String) -> Bool {
        Redaction.nameMatches(headerName, names: Redaction.normalizedSet(headers))
    }
}
