import CourierTesting
import Testing

/// Suites that must not overlap, run one after another.
///
/// On Linux, URLSession reads a streamed body on its work queue, one serial queue for every
/// session in the process: while an upload's producer is slower than the network (a stalled
/// stream; a body of single bytes batched into 64 KiB chunks; a 50 MB multipart body whose
/// boundary scan runs unoptimised in a debug build), every other request of the test process
/// waits. The timeout tests measure sub-second budgets, so they and the big or stalling uploads
/// take turns.
///
/// `.serialized` orders these suites among themselves only: other suites still run beside them
/// (as one `.loopback` suite, taking one of the four places real-server suites share; see
/// `SuiteTurnsTrait`).
/// Under the sanitizers, where everything is 5–15 times slower, `.ci/sanitizers.sh` therefore
/// runs this suite in a pass of its own (`--filter QueueSensitiveTests`) and skips it in the
/// others.
@Suite(.serialized, .loopback)
enum QueueSensitiveTests {}
