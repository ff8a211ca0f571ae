import Foundation

/// Media types for file extensions, for file bodies and multipart file parts that do not name one.
///
/// A fixed table rather than the system's (UniformTypeIdentifiers does not exist on Linux, and
/// the same file must get the same `Content-Type` on every platform).
enum MediaTypes {
    /// The media type for `url`'s extension (case-insensitive); `application/octet-stream` when
    /// the extension is unknown or missing.
    static func forFile(_ url: URL) -> String {
        forPathExtension(url.pathExtension)
    }

    /// The media type for a file extension without the dot (case-insensitive).
    static func forPathExtension(_ pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? "application/octet-stream"
    }

    private static let table: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain",
        "csv": "text/csv", "tsv": "text/tab-separated-values",
        "html": "text/html", "htm": "text/html", "css": "text/css",
        "md": "text/markdown", "markdown": "text/markdown",
        "ics": "text/calendar", "vcf": "text/vcard",
        "js": "text/javascript", "mjs": "text/javascript",
        // Structured data
        "json": "application/json", "geojson": "application/geo+json",
        "jsonld": "application/ld+json", "ndjson": "application/x-ndjson",
        "xml": "application/xml", "xsd": "application/xml", "rss": "application/rss+xml",
        "atom": "application/atom+xml", "svg": "image/svg+xml",
        "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml",
        // Documents
        "pdf": "application/pdf", "rtf": "application/rtf",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "epub": "application/epub+zip",
        // Archives and binaries
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "7z": "application/x-7z-compressed", "wasm": "application/wasm",
        "bin": "application/octet-stream",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "avif": "image/avif", "heic": "image/heic", "heif": "image/heif",
        "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "ico": "image/vnd.microsoft.icon",
        // Audio and video
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "flac": "audio/flac", "opus": "audio/opus",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
    ]
}
