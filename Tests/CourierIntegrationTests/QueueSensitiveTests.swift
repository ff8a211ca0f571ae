import Testing

/// Suites that must not overlap, run one after another.
///
/// On Linux, URLSession reads a streamed body on its work queue, one serial queue for every
/// session in the process: while an upload's producer is slower than the network (a stalled
/// stream; a 50 MB multipart body whose boundary scan runs unoptimised in a debug build), every
/// other request of the test process waits. The timeout tests measure sub-second budgets, so
/// they and the big or stalling uploads take turns.
@Suite(.serialized)
enum QueueSensitiveTests {}
