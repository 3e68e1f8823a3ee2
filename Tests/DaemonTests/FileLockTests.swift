import Foundation
import Glibc
import System
import Testing

/// System's FileLock, the one flock(2) of the project: what a second holder sees, shared against
/// exclusive, the lock going with its descriptor, a waiter granted once the holder lets go.
@Suite struct FileLockTests {
    /// Two descriptors opened apart on one new file (flock conflicts between them even in one process).
    func twoOpenings() throws -> (Int32, Int32, String) {
        let path = NSTemporaryDirectory() + "filelock-\(UUID().uuidString)"
        let first = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600), second = open(path, O_RDWR | O_CLOEXEC)
        try #require(first >= 0 && second >= 0)
        return (first, second, path)
    }

    @Test func aSecondHolderIsToldTheLockIsHeldUntilTheFirstLetsGo() throws {
        let (first, second, path) = try twoOpenings()
        defer { close(second); unlink(path) }
        #expect(FileLock.take(first) == .taken)
        #expect(FileLock.take(second, wait: false) == .held)
        #expect(FileLock.take(second, .shared, wait: false) == .held)
        close(first)
        #expect(FileLock.take(second, wait: false) == .taken)
    }

    @Test func sharedLocksShareAndKeepAnExclusiveOneOut() throws {
        let (first, second, path) = try twoOpenings()
        let third = open(path, O_RDWR | O_CLOEXEC)
        defer { close(first); close(second); close(third); unlink(path) }
        #expect(FileLock.take(first, .shared) == .taken)
        #expect(FileLock.take(second, .shared, wait: false) == .taken)
        #expect(FileLock.take(third, wait: false) == .held)
    }

    @Test func aWaiterIsGrantedTheLockWhenTheHolderClosesIt() throws {
        let (first, second, path) = try twoOpenings()
        defer { close(second); unlink(path) }
        #expect(FileLock.take(first) == .taken)
        let released = Thread { usleep(100_000); close(first) }
        released.start()
        #expect(FileLock.take(second) == .taken)  // waits, then is granted
    }

    @Test func aBadDescriptorFailsWithItsErrno() {
        #expect(FileLock.take(-1, wait: false) == .failed(EBADF))
        #expect(FileLock.take(-1) == .failed(EBADF))
    }
}
