package dev.kconnect.host;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The head of a class file — its name, access flags, superclass and interfaces — read without
 * loading the class, so the scanner can find plugin candidates among thousands of library
 * classes without defining (and running static initialisers of) any of them.
 *
 * <p>Immutable; {@link #read(byte[])} is thread-safe.
 */
final class ClassFileHeader {

    private static final int MAGIC = 0xCAFEBABE;
    static final int ACC_PUBLIC = 0x0001;
    static final int ACC_INTERFACE = 0x0200;
    static final int ACC_ABSTRACT = 0x0400;
    static final int ACC_ANNOTATION = 0x2000;
    static final int ACC_MODULE = 0x8000;

    final String name;
    final int accessFlags;
    /** Binary name of the superclass, or null for {@code java.lang.Object} and modules. */
    final String superName;
    final List<String> interfaceNames;

    private ClassFileHeader(String name, int accessFlags, String superName, List<String> interfaceNames) {
        this.name = name;
        this.accessFlags = accessFlags;
        this.superName = superName;
        this.interfaceNames = interfaceNames;
    }

    /** A public, concrete class (not an interface, annotation or module): a plugin candidate. */
    boolean isPublicConcreteClass() {
        return (accessFlags & ACC_PUBLIC) != 0
                && (accessFlags & (ACC_INTERFACE | ACC_ABSTRACT | ACC_ANNOTATION | ACC_MODULE)) == 0;
    }

    /**
     * Reads the header of a class file's bytes.
     *
     * @throws IOException when the bytes are not a class file
     */
    static ClassFileHeader read(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != MAGIC) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] classNameIndex = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: // Utf8 (modified UTF-8, the format readUTF reads)
                    utf8[i] = in.readUTF();
                    break;
                case 7: // Class
                    classNameIndex[i] = in.readUnsignedShort();
                    break;
                case 8: // String
                case 16: // MethodType
                case 19: // Module
                case 20: // Package
                    in.skipBytes(2);
                    break;
                case 15: // MethodHandle
                    in.skipBytes(3);
                    break;
                case 3: // Integer
                case 4: // Float
                case 9: // Fieldref
                case 10: // Methodref
                case 11: // InterfaceMethodref
                case 12: // NameAndType
                case 17: // Dynamic
                case 18: // InvokeDynamic
                    in.skipBytes(4);
                    break;
                case 5: // Long
                case 6: // Double
                    in.skipBytes(8);
                    i++; // takes two slots
                    break;
                default:
                    throw new IOException("unknown constant pool tag " + tag);
            }
        }
        int flags = in.readUnsignedShort();
        String name = className(utf8, classNameIndex, in.readUnsignedShort());
        int superIndex = in.readUnsignedShort();
        String superName = superIndex == 0 ? null : className(utf8, classNameIndex, superIndex);
        int interfaceCount = in.readUnsignedShort();
        List<String> interfaces = new ArrayList<>(interfaceCount);
        for (int i = 0; i < interfaceCount; i++) {
            interfaces.add(className(utf8, classNameIndex, in.readUnsignedShort()));
        }
        return new ClassFileHeader(name, flags, superName, List.copyOf(interfaces));
    }

    private static String className(String[] utf8, int[] classNameIndex, int classIndex) throws IOException {
        if (classIndex <= 0 || classIndex >= classNameIndex.length || utf8[classNameIndex[classIndex]] == null) {
            throw new IOException("bad class reference " + classIndex);
        }
        return utf8[classNameIndex[classIndex]].replace('/', '.');
    }
}
