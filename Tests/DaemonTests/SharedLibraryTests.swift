import Foundation
import Testing
import System
import TrapperCore

/// A library opened on first use says in one line what needs it and why it cannot be had.
@Suite struct SharedLibraryTests {
    /// The error's text, nil for a library that opened.
    func failure<Table>(_ result: Result<Table, SharedLibrary.Failure>) -> String? {
        if case .failure(let failure) = result { failure.description } else { nil }
    }

    @Test func aMissingLibraryIsNamedWithTheLoadersReason() {
        let result = SharedLibrary.open("libpdftrapper-none.so.1", for: "testing") { (_, _: UnsafeMutablePointer<Int>) in nil }
        #expect(failure(result) == "testing needs libpdftrapper-none.so.1 (cannot open shared object file: No such file or directory)")
    }

    @Test func aMissingFunctionIsNamed() {
        let result = SharedLibrary.open("libz.so.1", for: "testing") { (_, _: UnsafeMutablePointer<Int>) in
            UnsafeRawPointer(("deflateEverything" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
        }
        #expect(failure(result) == "testing needs libz.so.1 with deflateEverything, which this one lacks")
    }

    @Test func theTableComesBackFilled() throws {
        typealias Version = @convention(c) () -> UnsafePointer<CChar>
        let result = SharedLibrary.open("libz.so.1", for: "testing") { library, table in
            table.initialize(to: unsafeBitCast(dlsym(library, "zlibVersion"), to: Version.self))
            return nil
        }
        #expect(String(cString: try result.get()()).hasPrefix("1."))
    }
}
