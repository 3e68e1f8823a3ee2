import CSane
import Synchronization
import TrapperCore

/// One `sane_init` … `sane_exit` span. SANE keeps its state in globals, so a process holds at most one
/// session at a time; a second `SaneSession()` while one lives throws `.sessionAlreadyOpen`.
/// Devices opened from a session keep it alive, so `sane_exit` never runs under an open handle.
public final class SaneSession {
    private static let isOpen = Mutex(false)

    /// `major.minor.build` of the SANE library, as `sane_init` reported it.
    public let version: String
    /// SANE's functions, for this session and its devices: `sane.sane_open(...)`.
    let sane: trapper_sane

    /// Loads the backends named in dll.conf (`SANE_CONFIG_DIR` chooses which dll.conf; set it before this).
    public init() throws(ScanError) {
        let claimed = Self.isOpen.withLock { open in
            if open { return false }
            open = true
            return true
        }
        guard claimed else { throw .sessionAlreadyOpen }
        do {
            sane = try Sane.functions()
        } catch {
            Self.isOpen.withLock { $0 = false }
            throw .library(error)
        }
        var code: SANE_Int = 0
        let status = sane.sane_init(&code, nil)
        guard status == SANE_STATUS_GOOD else {
            Self.isOpen.withLock { $0 = false }
            throw .sane(step: "sane_init", status: SaneStatus(status))
        }
        version = "\((code >> 24) & 0xff).\((code >> 16) & 0xff).\(code & 0xffff)"
    }

    deinit {
        sane.sane_exit()
        Self.isOpen.withLock { $0 = false }
    }

    /// The devices the backends find now (strings copied out; SANE's list is only valid until the next call).
    public func devices(localOnly: Bool = false) throws(ScanError) -> [DeviceInfo] {
        var list: UnsafeMutablePointer<UnsafePointer<SANE_Device>?>?
        try ScanError.check(sane.sane_get_devices(&list, localOnly ? SANE_TRUE : SANE_FALSE), "sane_get_devices")
        var found: [DeviceInfo] = []
        guard let list else { return found }
        var i = 0
        while let device = list[i] {
            found.append(DeviceInfo(
                name: string(device.pointee.name), vendor: string(device.pointee.vendor),
                model: string(device.pointee.model), type: string(device.pointee.type)))
            i += 1
        }
        return found
    }

    /// Opens a device by its SANE name (`test:0`, `fujitsu:fi-7160:1234`); "" opens the first one.
    public func open(_ name: String) throws(ScanError) -> SaneDevice {
        var handle: SANE_Handle?
        try ScanError.check(sane.sane_open(name, &handle), "sane_open \(name)")
        guard let handle else { throw .sane(step: "sane_open \(name)", status: .invalid) }
        return SaneDevice(handle: handle, name: name, session: self)
    }
}

/// A device as `sane_get_devices` lists it.
public struct DeviceInfo: Sendable, Equatable {
    public var name: String
    public var vendor: String
    public var model: String
    /// "flatbed scanner", "sheetfed scanner", "virtual device", …
    public var type: String
}

/// A C string copied into Swift at once; nil reads as "".
func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
}

extension SaneSession {
    /// The device a profile or `[[scanner]]` names: nil takes the first device found; a name with
    /// `*`, `?` or `[` is a pattern matched against the device list (first match); a plain name is
    /// opened directly, as SANE names need not be listed to open (network scanners).
    public func open(matching pattern: String?) throws(ScanError) -> SaneDevice {
        guard let pattern, !pattern.isEmpty else {
            guard let first = try devices().first else { throw .noDevice(pattern: "any") }
            return try open(first.name)
        }
        guard pattern.contains(where: { "*?[".contains($0) }) else { return try open(pattern) }
        let glob = Glob(pattern)
        guard let found = try devices().first(where: { glob.matches(name: $0.name) }) else {
            throw .noDevice(pattern: pattern)
        }
        return try open(found.name)
    }
}
