#!/usr/bin/env python3
"""gen.py - write rdmpi's Fortran bindings from one description of the API.

    python3 gen.py MPI_H API_TXT OUTDIR

The description is include/mpi.h (its one-line C prototypes and #defines)
plus fortran/api.txt (the Fortran facts C does not say: LOGICAL parameters,
array lengths, 1-based indices, hand-written functions).  Writes into OUTDIR:

  glue.c       pmpi_foo_ (and its weak alias mpi_foo_) for every function:
               gfortran's name for MPI_FOO, called by mpif.h, use mpi and most
               procedures of use mpi_f08 without a choice buffer; pmpi_foo_f08_
               for those with a TYPE(MPI_Status); and PMPI_Foo_f08ts and the
               weak MPI_Foo_f08ts, the BIND(C) procedures of mpi_f08 for a
               function with a choice buffer, which take TS 29113
               descriptors (ISO_Fortran_binding.h)
  mpif.h       constants, special addresses (common blocks), externals
  mpi.f90      module mpi: the same constants and explicit interfaces
  mpi_f08.f90  module mpi_f08: handle types, typed constants, interfaces;
               after it the trampolines to a tool's plain Fortran
               MPI_Foo_f08ts

Each output is written to a temporary name and renamed, so that a failed run
never leaves a half-written file that make would take as up to date.
"""
import os
import re
import sys

HANDLES = {
    'MPI_Comm': 'Comm', 'MPI_Group': 'Group', 'MPI_Datatype': 'Type', 'MPI_Op': 'Op',
    'MPI_Errhandler': 'Errhandler', 'MPI_Request': 'Request', 'MPI_Info': 'Info',
    'MPI_Win': 'Win', 'MPI_File': 'File', 'MPI_Message': 'Message', 'MPI_Session': 'Session',
}
INTS = {'int': 'MPI_Fint', 'MPI_Aint': 'MPI_Aint', 'MPI_Offset': 'MPI_Offset',
        'MPI_Count': 'MPI_Count'}
FKIND = {'int': 'int', 'MPI_Aint': 'aint', 'MPI_Offset': 'offset', 'MPI_Count': 'count'}
ADDR_OUT = {'baseptr', 'buffer_addr'}
# Output strings are written by C into a temporary at least this long (the
# longest MPI_MAX_* string, MPI_MAX_LIBRARY_VERSION_STRING, plus its NUL).
STR_TMP = 8193
# C parameters that bound how much C writes into an output string.
STR_CAPS = {'MPI_Info_get': 'valuelen', 'MPI_Session_get_nth_pset': 'pset_len'}


class Param:
    """One Fortran-visible parameter: kind is int, logical, aint, offset,
    count, handle, status, string, buffer, addr, proc or ranges."""

    def __init__(self, name, kind, out=False, array=False, handle=None, rows=None):
        self.name, self.kind, self.out, self.array, self.handle = name, kind, out, array, handle
        self.rows = rows    # an array(rows, *) of a special's signature


class Func:
    def __init__(self, name, ret, params, special=False):
        self.name, self.ret, self.params, self.special = name, ret, params, special
        self.cparams = []   # (ctype, const, ptr, name, brackets) of the generic ones
        self.lens = {}      # handle/status array parameter -> length expression
        self.index1 = []

    @property
    def lname(self):
        return self.name.lower()

    def has_buffer(self):
        return any(p.kind == 'buffer' for p in self.params)

    def has_string(self):
        return any(p.kind == 'string' for p in self.params)


def die(msg):
    sys.stderr.write('gen.py: %s\n' % msg)
    sys.exit(1)


def read_api(path):
    api = {'logical': set(), 'array': set(), 'len': {}, 'index1': {}, 'skip': {}, 'special': []}
    for raw in open(path):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        word, rest = line.split(None, 1)
        if word in ('logical', 'array'):
            api[word].update(rest.split())
        elif word == 'len':
            f, p, e = rest.split()
            api['len'][(f, p)] = e
        elif word == 'index1':
            f, p = rest.split()
            api['index1'].setdefault(f, []).append(p)
        elif word == 'skip':
            names, why = rest.split('--', 1)
            for n in names.split():
                api['skip'][n] = why.strip()
        elif word == 'special':
            api['special'].append(rest)
        else:
            die('%s: unknown line %r' % (path, raw))
    return api


PROTO = re.compile(r'^(int|double|MPI_Aint) (MPI_\w+)\((.*?)\)( RDMPI_\w+\(\d+\))?;$')
PARAM = re.compile(r'^(const )?([A-Za-z_][\w ]*?)\s*(\**)\s*(\w+)((?:\[\]|\[3\])*)$')


def parse_c(mpi_h, api):
    funcs, defines = [], []
    specials = {s.split('(')[0] for s in api['special']}
    for line in open(mpi_h):
        line = line.rstrip('\n')
        m = re.match(r'^#define (MPI_\w+) (.+)$', line)
        if m:
            defines.append((m.group(1), m.group(2).split('/*')[0].strip()))
            continue
        m = PROTO.match(line)
        if not m:
            continue
        ret, name, args = m.group(1), m.group(2), m.group(3)
        if name.startswith('MPI_T_') or re.search(r'_(c2f|f2c|c2f08|f082c|f082f|f2f08)$', name) \
                or name.endswith('_FN') or name.endswith('_NULL') or name.endswith('_NULL_C') \
                or name in api['skip'] or name in specials:
            continue
        cparams = []
        if args != 'void':
            for a in args.split(', '):
                pm = PARAM.match(a.strip())
                if not pm:
                    die('cannot parse parameter %r of %s' % (a, name))
                cparams.append((pm.group(2), bool(pm.group(1)), len(pm.group(3)), pm.group(4),
                                pm.group(5)))
        f = classify(name, ret, cparams, api)
        if f:
            funcs.append(f)
    return funcs, defines


def classify(name, ret, cparams, api):
    params = []
    for ctype, const, ptr, pname, br in cparams:
        if ctype in ('MPI_Fint', 'MPI_F08_status') or ctype.endswith('_function') \
                or ctype.endswith('_function_c') or ctype == 'char' and ptr > 1:
            die('%s has parameter %s of type %s: list it as skip or special in api.txt'
                % (name, pname, ctype))
        if br == '[3]' or br == '[][3]':
            params.append(Param(pname, 'ranges', out=not const, array=True))
        elif ctype == 'void':
            if pname in ADDR_OUT:
                params.append(Param(pname, 'addr', out=True))
            else:
                params.append(Param(pname, 'buffer', out=not const))
        elif ctype in INTS:
            kind = 'logical' if ctype == 'int' and pname in api['logical'] else FKIND[ctype]
            array = ptr > 0 and (const or pname.startswith('array_of_') or pname in api['array']
                                 or (pname == 'indx' and name == 'MPI_Graph_get'))
            params.append(Param(pname, kind, out=ptr > 0 and not const, array=array))
        elif ctype in HANDLES:
            array = ptr > 0 and (const or pname.startswith('array_of_')
                                 or pname in ('sendtypes', 'recvtypes'))
            params.append(Param(pname, 'handle', out=ptr > 0 and not const, array=array,
                                handle=ctype))
        elif ctype == 'MPI_Status':
            params.append(Param(pname, 'status', out=not const, array='statuses' in pname))
        elif ctype == 'char':
            params.append(Param(pname, 'string', out=not const))
        else:
            die('%s: parameter %s has unknown type %s' % (name, pname, ctype))
    f = Func(name, ret, params)
    f.cparams = cparams
    for p in params:
        if p.array and p.kind in ('handle', 'status'):
            e = api['len'].get((name, p.name)) or api['len'].get(('*', p.name))
            if p.kind == 'status':
                e = next((f.lens[q.name] for q in params if q.name in f.lens), None)
            if not e:
                die('%s: give the length of %s with a len line in api.txt' % (name, p.name))
            f.lens[p.name] = e
    f.index1 = api['index1'].get(name, [])
    return f


def parse_special(sig):
    m = re.match(r'^(MPI_\w+)\((.*)\)$', sig)
    if not m:
        die('bad special %r' % sig)
    params = []
    for a in filter(None, [x.strip() for x in m.group(2).split(',')]):
        pname, t = a.split(':')
        out = t.endswith('*')
        t = t.rstrip('*')
        dims = re.findall(r'\[(\w*)\]', t)
        array, rows = bool(dims), dims[0] if len(dims) == 2 else None
        t = re.sub(r'\[\w*\]', '', t)
        if t in HANDLES:
            params.append(Param(pname, 'handle', out=out, array=array, handle=t))
        elif t in ('int', 'logical', 'aint', 'offset', 'count', 'proc', 'addr', 'string', 'buffer'):
            params.append(Param(pname, t, out=out, array=array, rows=rows))
        else:
            die('special %s: unknown type %s' % (sig, t))
    return Func(m.group(1), 'int', params, special=True)


# ---------------------------------------------------------------- C glue

# The three C entries a function may have, by how it is called:
#   F77   pmpi_foo_ of mpif.h and use mpi: gfortran's convention (everything
#         by reference, hidden string lengths), INTEGER(6) statuses
#   F08   pmpi_foo_f08_ of a use mpi_f08 procedure without a choice buffer
#         but with a status: the same convention, TYPE(MPI_Status) in place
#   CFI   PMPI_Foo_f08ts of a use mpi_f08 procedure with a choice buffer,
#         bound to it with BIND(C): buffers and strings are descriptors
F77, F08, CFI = 'f77', 'f08', 'cfi'


def convert(f, conv):
    """The C side of one call: (sig, early, pre, args, post), where early
    converts what the descriptors of the choice buffers need first."""
    sig, early, pre, args, post, lens = [], [], [], [], [], []
    ok = 'rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS'
    partners = section_partners(f) if conv == CFI else {}
    cnts = {c: b for b, (c, d) in partners.items()}
    dts = {d: b for b, (c, d) in partners.items()}
    for (ctype, const, ptr, name, br), p in zip(f.cparams, f.params):
        k = p.kind
        if k == 'buffer':
            if conv == CFI:
                sig.append('CFI_cdesc_t *%s' % name)
                args.append('f_buf(%s->base_addr)' % name)
            else:
                sig.append('void *%s' % name)
                args.append('f_buf(%s)' % name)
        elif k == 'addr':
            sig.append('void *%s' % name)
            args.append(name)
        elif k == 'ranges':
            sig.append('MPI_Fint *%s' % name)
            args.append('(int (*)[3])%s' % name)
        elif k in ('int', 'logical', 'aint', 'offset', 'count'):
            sig.append('%s *%s' % (INTS[ctype], name))
            if name in cnts:
                # A section passed as one element of a datatype has count 1.
                early.append('%s n_%s = *%s;' % (INTS[ctype], cnts[name], name))
                args.append('n_' + cnts[name])
            elif ptr == 0:
                args.append('*' + name)
            elif name.endswith('weights'):
                args.append('f_weights(%s)' % name)
            else:
                args.append(name)
            if k == 'logical' and p.out and not p.array:
                post.append('if (rc == MPI_SUCCESS) *%s = f_logical(*%s);' % (name, name))
            if name in STR_CAPS.values() and f.name in STR_CAPS:
                pre.append('if (*%s > %d) *%s = %d;' % (name, STR_TMP - 1, name, STR_TMP - 1))
        elif k == 'handle':
            h = HANDLES[ctype]
            sig.append('MPI_Fint *%s' % name)
            if name in dts:
                b = dts[name]
                early.append('MPI_Datatype t_%s = F_F2C(MPI_Datatype, Type, *%s), '
                             's_%s = MPI_DATATYPE_NULL;' % (b, name, b))
                args.append('t_' + b)
            elif ptr == 0:
                args.append('F_F2C(%s, %s, *%s)' % (ctype, h, name))
            elif not p.array:
                pre.append('%s c_%s = F_F2C(%s, %s, *%s);' % (ctype, name, ctype, h, name))
                args.append('&c_' + name)
                post.append('if (%s) *%s = PMPI_%s_c2f(c_%s);' % (ok, name, h, name))
            else:
                n = f_len(f, f.lens[name])
                pre.append('int n_%s = %s;' % (name, n))
                pre.append('%s *c_%s = f_alloc_handles(n_%s, sizeof(%s));'
                           % (ctype, name, name, ctype))
                pre.append('for (int i = 0; c_%s && i < n_%s; i++) c_%s[i] = PMPI_%s_f2c(%s[i]);'
                           % (name, name, name, h, name))
                args.append('c_' + name)
                if p.out:
                    post.append('if (%s) for (int i = 0; i < n_%s; i++) %s[i] = PMPI_%s_c2f(c_%s[i]);'
                                % (ok, name, name, h, name))
                post.append('free(c_%s);' % name)
        elif k == 'status':
            if conv != F77:
                # TYPE(MPI_Status) is laid out (and aligned) as MPI_Status.
                sig.append('MPI_Status *%s' % name)
                args.append('f08_status%s(%s)' % ('es' if p.array else '', name))
            elif not p.array:
                sig.append('MPI_Fint *%s' % name)
                pre.append('MPI_Status s_%s, *c_%s = f_status_in(%s, &s_%s);'
                           % (name, name, name, name))
                args.append('c_' + name)
                if p.out:
                    post.append('f_status_out(%s, c_%s);' % (name, name))
            else:
                sig.append('MPI_Fint *%s' % name)
                pre.append('MPI_Status *c_%s = f_statuses_in(%s, n_%s);'
                           % (name, name, first_array(f)))
                args.append('c_' + name)
                post.append('f_statuses_out(%s, c_%s, n_%s);' % (name, name, first_array(f)))
        elif k == 'string':
            if conv == CFI:
                # BIND(C) passes CHARACTER(LEN=*) as a descriptor.
                sig.append('CFI_cdesc_t *%s' % name)
                s, n = '%s->base_addr' % name, '%s->elem_len' % name
            else:
                sig.append('char *%s' % name)
                lens.append('size_t %s_len' % name)
                s, n = name, name + '_len'
            if p.out:
                pre.append('char *c_%s = f_str_tmp(%s, %d);' % (name, n, STR_TMP))
                args.append('c_' + name)
                # A value not found leaves the Fortran string as it was.
                found = ' && *flag' if any(q.name == 'flag' for q in f.params) else ''
                post.append('if (rc == MPI_SUCCESS%s) f_str_out(%s, %s, c_%s);'
                            % (found, s, n, name))
            else:
                # Info keys and values lose leading blanks too (MPI-4.1 10.1).
                lead = '1' if f.name.startswith('MPI_Info_') else '0'
                pre.append('char *c_%s = f_str_in(%s, %s, %s);' % (name, s, n, lead))
                args.append('c_' + name)
            post.append('free(c_%s);' % name)
    for name in f.index1:
        p = next(q for q in f.params if q.name == name)
        if p.array:
            post.append('if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) '
                        'for (int i = 0; i < *outcount; i++) %s[i]++;' % name)
        else:
            post.append('if (rc == MPI_SUCCESS && *%s != MPI_UNDEFINED) (*%s)++;' % (name, name))
    for b in partners:
        post.append('f08_type_free(&s_%s);' % b)
    if f.ret == 'int':
        sig.append('MPI_Fint *ierr')
    return sig + lens, early, pre, args, post


def c_name(f, conv):
    """The entry's external name and the weak aliases a tool may replace."""
    if conv == CFI:
        return 'P%s_f08ts' % f.name, []
    if conv == F08:
        n = f.lname + '_f08_'
        return 'p' + n, ['#pragma weak %s = p%s' % (n, n)]
    if f.has_buffer() or f08_status(f):
        return 'p%s_' % f.lname, ['#pragma weak %s_ = p%s_' % (f.lname, f.lname)]
    # The same arguments serve mpi_f08's MPI_Foo_f08 and PMPI_Foo_f08: a
    # TYPE(MPI_Comm) is passed as the address of its integer.
    return 'p%s_' % f.lname, ['F_ALIASES(%s)' % f.lname[4:]]


def f08_status(f):
    """Whether mpi_f08's procedure of a function without a choice buffer
    needs an entry of its own: one with a TYPE(MPI_Status) argument."""
    return not f.has_buffer() and any(p.kind == 'status' for p in f.params)


def c_entry(f, conv):
    """One C entry: conversions, the descriptors' checks, PMPI_Foo, ierror."""
    sig, early, pre, args, post = convert(f, conv)
    name, alias = c_name(f, conv)
    call = 'PMPI_%s(%s)' % (f.name[4:], ', '.join(args))
    if f.ret != 'int':
        rt = {'double': 'double', 'MPI_Aint': 'MPI_Aint'}[f.ret]
        head = '%s %s(%s)' % (rt, name, ', '.join(sig) or 'void')
        return '%s;\n%s\n%s\n{\n    return %s;\n}\n' % (head, '\n'.join(alias), head, call)
    head = 'void %s(%s)' % (name, ', '.join(sig))
    body = ''.join('    %s\n' % s for s in early)
    if conv == CFI:
        body += f08_checks(f)
    body += ''.join('    %s\n' % s for s in pre)
    body += '    int rc = %s;\n' % call
    body += ''.join('    %s\n' % s for s in post)
    body += '    if (ierr)\n        *ierr = rc;\n'
    if conv == CFI and fast_ok(f):
        return c_fast(f, sig, name, body) + c_tool(f, sig, 'f08_%s_fast' % f.lname[4:])
    out = '%s;\n%s\n%s\n{\n%s}\n' % (head, '\n'.join(alias), head, body)
    return out + (c_hidden(name) + c_tool(f, sig, 'f08_' + name) if conv == CFI else '')


def c_hidden(name):
    """f08_PMPI_Foo_f08ts: the library's own name of PMPI_Foo_f08ts, which
    MPI_Foo_f08ts jumps to directly rather than through the PLT."""
    return ('extern __typeof(%s) f08_%s __attribute__((alias("%s"), visibility("hidden")));\n'
            % (name, name, name))


def fast_ok(f):
    """Whether f's descriptor entry gets a path of its own for the common
    case: nothing but choice buffers, scalars passed in, input handles and
    one status, so that with contiguous buffers and predefined handles the
    call is PMPI_Foo's arguments read in place."""
    if f.ret != 'int':
        return False
    for (ctype, const, ptr, name, br), p in zip(f.cparams, f.params):
        if p.kind == 'buffer' or p.kind == 'status' and not p.array:
            continue
        if p.kind in ('int', 'logical', 'aint', 'offset', 'count', 'handle') and ptr == 0:
            continue
        return False
    return True


def c_fast(f, sig, name, body):
    """PMPI_Foo_f08ts with its common case first: when every buffer is a
    scalar or a rank-1 array of adjacent elements (f08_fast), PMPI_Foo gets
    its arguments read in place, the handles too when all are predefined
    (the C handle's value, F_PREDEF), as a tail call when ierror is absent;
    user handles go through PMPI_X_f2c in f08_foo_user, anything else
    through the general body, f08_foo_any.  The common case, f08_foo_fast,
    is inlined into MPI_Foo_f08ts too, which then costs its test for a tool
    only.  The two others are functions of their own, so that the common
    case keeps to the argument registers (one saved for ierror at most)."""
    args, uargs, bufs, preds, bases, bufnames = [], [], [], [], [], []
    for (ctype, const, ptr, pname, br), p in zip(f.cparams, f.params):
        if p.kind == 'buffer':
            bufs.append('!f08_fast(%s)' % pname)
            bufnames.append(pname)
            bases.append('void *c_%s = f08_base(%s);' % (pname, pname))
            args.append('c_' + pname)
            uargs.append(pname)
        elif p.kind == 'handle':
            preds.append('!F_PREDEF(*%s)' % pname)
            args.append('(%s)(uintptr_t)*%s' % (ctype, pname))
            uargs.append('F_F2C(%s, %s, *%s)' % (ctype, HANDLES[ctype], pname))
        elif p.kind == 'status':
            args.append('f08_status(%s)' % pname)
            uargs.append(args[-1])
        else:
            args.append('*' + pname)
            uargs.append(args[-1])
    call = 'PMPI_%s(%s)' % (f.name[4:], ', '.join(args))
    names = ', '.join(re.sub(r'.*[ *]', '', a) for a in sig)
    low = f.lname[4:]
    anyf, fast, user = 'f08_%s_any' % low, 'f08_%s_fast' % low, 'f08_%s_user' % low
    sg = ', '.join(sig)
    out = 'void %s(%s);\n' % (name, sg)
    out += ('static void %s(%s) __attribute__((noinline));\n'
            'static void %s(%s)\n{\n%s}\n\n' % (anyf, sg, anyf, sg, body))
    # The buffers' C addresses are taken before the handles are tested, so
    # that the descriptors are dead by then: a register less.
    test = ''.join('    %s\n' % b for b in bases)
    if preds:
        usg = ', '.join(re.sub(r'^CFI_cdesc_t \*', 'void *', a) for a in sig)
        ucall = ', '.join('c_' + n if n in bufnames else n for n in names.split(', '))
        out += ('static void %s(%s) __attribute__((noinline));\n'
                'static void %s(%s)\n{\n'
                '    int rc = PMPI_%s(%s);\n    if (ierr)\n        *ierr = rc;\n}\n\n'
                % (user, usg, user, usg, f.name[4:], ', '.join(uargs)))
        test += ('    if (__builtin_expect(%s, 0)) {\n        %s(%s);\n        return;\n    }\n'
                 % (' || '.join(preds), user, ucall))
    out += ('static inline __attribute__((always_inline)) void %s(%s)\n{\n'
            '    if (__builtin_expect(%s, 0)) {\n        %s(%s);\n        return;\n    }\n'
            '%s'
            '    if (!ierr) {\n        %s;\n        return;\n    }\n'
            '    *ierr = %s;\n}\n\n'
            'void %s(%s)\n{\n    %s(%s);\n}\n'
            % (fast, sg, ' || '.join(bufs), anyf, names, test, call, call, name, sg, fast,
               names))
    return out


def c_tool(f, sig, target):
    """MPI_Foo_f08ts, weak: target (PMPI_Foo_f08ts's common case inlined,
    or its hidden name), unless a tool has replaced it by a plain Fortran
    procedure (MPI-4.1 section 19.1.5), whose name is then
    gfortran's mpi_foo_f08ts_ and whose descriptors are gfortran's own:
    rdmpi_tool_foo_f08ts (Fortran, in mpi_f08.f90) converts and calls it.
    The reference is weak here, as gfortran cannot make one."""
    spec, low = f.name + '_f08ts', f.lname + '_f08ts'
    args = [re.sub(r'.*[ *]', '', a) for a in sig]
    names = ', '.join(args)
    # The tool's descriptors are widened to every rank (f08_desc_widen).
    descs = [n for a, n in zip(sig, args) if a.startswith('CFI_cdesc_t *')]
    wide = ''.join('    f08_desc_full w_%s;\n' % n for n in descs)
    tool = ', '.join('f08_desc_widen(&w_%s, %s)' % (n, n) if n in descs else n for n in args)
    head = 'void %s(%s)' % (spec, ', '.join(sig))
    # The tool's path is a function of its own, so that the usual one keeps
    # no frame: a test of the weak reference and a jump.
    via = 'f08_%s_tool' % low[4:]
    return ('\nvoid %s_(void) __attribute__((weak));\n'
            'void rdmpi_tool_%s(void (*tool)(void), %s);\n'
            'static void %s(%s) __attribute__((noinline, cold));\n'
            'static void %s(%s)\n{\n%s    rdmpi_tool_%s(%s_, %s);\n}\n\n'
            '%s __attribute__((weak));\n%s\n{\n'
            '    if (%s_) {\n        %s(%s);\n        return;\n    }\n'
            '    %s(%s);\n}\n'
            % (low, low[4:], ', '.join(sig), via, ', '.join(sig), via, ', '.join(sig),
               wide, low[4:], low, tool, head, head, low, via, names,
               target, names))


def first_array(f):
    return next(p.name for p in f.params if p.kind == 'handle' and p.array)


def f_len(f, e):
    comm = next((p.name for p in f.params if p.handle == 'MPI_Comm' and not p.out), None)
    if e.startswith('@'):
        return 'f_comm_len(PMPI_Comm_f2c(*%s), F_LEN_%s)' % (comm, e[1:].upper())
    return '*' + e


def section_partners(f):
    """buffer -> (count, datatype) parameters describing it, for the buffers
    whose non-contiguous sections f08_section may describe with a datatype: one
    scalar count and datatype of their own, in a call that is complete when
    it returns or whose request keeps the datatype (point-to-point,
    collectives, blocking MPI-IO; not one-sided, not non-blocking MPI-IO)."""
    if f.name.startswith(('MPI_File_i', 'MPI_File_r', 'MPI_File_w')) and \
            not re.match(r'MPI_File_(read|write)(_at|_all|_at_all|_shared|_ordered)?(_c)?$',
                         f.name):
        return {}
    scalars = {p.name: p for p in f.params if not p.array and not p.out
               and p.kind in ('int', 'count', 'handle')}
    found = {}
    for p in f.params:
        if p.kind != 'buffer':
            continue
        pre = {'buf': '', 'buffer': '', 'sendbuf': 'send', 'recvbuf': 'recv', 'inbuf': 'in',
               'outbuf': 'out'}.get(p.name)
        if pre is None:
            continue
        cnt = next((n for n in (pre + 'count', 'count') if n in scalars
                    and scalars[n].kind in ('int', 'count')), None)
        dt = next((n for n in (pre + 'type', 'datatype') if n in scalars
                   and scalars[n].handle == 'MPI_Datatype'), None)
        if cnt and dt:
            found[p.name] = (cnt, dt)
    pairs = list(found.values())
    return {b: cd for b, cd in found.items() if pairs.count(cd) == 1}


def f08_checks(f):
    """The choice buffers' descriptors: a contiguous one (a scalar, or the
    elements one after another) is its base address; a section becomes one
    element of a datatype built over it where section_partners allows;
    anything else is refused."""
    obj = next((p for p in f.params if p.kind == 'handle' and not p.out and not p.array
                and p.handle in ('MPI_Comm', 'MPI_Win', 'MPI_File')), None)
    who = 'F_OBJ_NONE, 0' if not obj else 'F_OBJ_%s, *%s' % (obj.handle[4:].upper(), obj.name)
    partners = section_partners(f)
    body = ''
    for p in f.params:
        if p.kind != 'buffer':
            continue
        b = p.name
        if b in partners:
            body += ('    if (!f08_contiguous(%s)) {\n'
                     '        if (f08_section(%s, n_%s, &t_%s, &s_%s, "%s", "%s", %s, ierr))\n'
                     '            return;\n'
                     '        n_%s = 1;\n    }\n'
                     % (b, b, b, b, b, f.name, b, who, b))
        else:
            body += ('    if (!f08_contiguous(%s)) {\n'
                     '        f08_refuse("%s", "%s", "", %s, ierr);\n'
                     '        return;\n    }\n' % (b, f.name, b, who))
    return body


def write_glue(funcs):
    out = ['/* Generated by fortran/gen.py from include/mpi.h and fortran/api.txt:'
           ' do not edit. */',
           '#include "f_glue.h"', '']
    for f in funcs:
        if f.special:
            continue
        out.append(c_entry(f, F77))
        if f.has_buffer():
            out.append(c_entry(f, CFI))
        elif f08_status(f):
            out.append(c_entry(f, F08))
    return '\n'.join(out)


# ---------------------------------------------------------------- Fortran

def wrap(line, indent, cont='&'):
    """Free-form lines within 132 columns, broken after commas."""
    res = []
    while len(line) > 100:
        cut = line.rfind(', ', 0, 100) + 1
        if cut <= 0:
            break
        res.append(line[:cut] + ' ' + cont)
        line = ' ' * (indent + 4) + line[cut:].lstrip()
    res.append(line)
    return res


def ftype(p, f08, bindc):
    ik = 'integer(c_int)' if bindc else 'integer'
    k = p.kind
    if k == 'int':
        return ik
    if k == 'logical':
        return 'logical'
    if k == 'aint':
        return 'integer(kind=MPI_ADDRESS_KIND)'
    if k == 'addr':
        # use mpi takes INTEGER(KIND=MPI_ADDRESS_KIND) and TYPE(C_PTR) alike.
        return 'type(c_ptr)' if f08 else 'type(*), dimension(*)'
    if k == 'offset':
        return 'integer(kind=MPI_OFFSET_KIND)'
    if k == 'count':
        return 'integer(kind=MPI_COUNT_KIND)'
    if k == 'handle':
        return 'type(%s)' % p.handle if f08 else ik
    if k == 'status':
        return 'type(MPI_Status)' if f08 else ik
    if k == 'string':
        return 'character(len=*)'
    if k == 'ranges':
        return ik
    if k == 'buffer':
        return 'type(*), dimension(..)' if f08 else 'type(*), dimension(*)'
    if k == 'proc':
        return 'external'
    die('no Fortran type for %s' % k)


def asynchronous(f):
    n = f.name
    return bool(re.match(r'MPI_(I[a-z]|R(put|get|accumulate)|Put|Get|Accumulate|'
                         r'Get_accumulate|Fetch_and_op|Compare_and_swap|File_i|Win_create|'
                         r'Win_attach|Buffer_attach|Comm_attach|Session_attach)', n)) \
        or n.endswith('_init') or n.endswith('_begin') or n.endswith('_end') \
        or n.startswith('MPI_Psend') or n.startswith('MPI_Precv')


def f_interface(f, f08, specific=None, bindc=None):
    """One interface body."""
    names = [p.name for p in f.params]
    isfunc = f.ret != 'int'
    if not isfunc:
        names.append('ierror')
    name = specific or f.name
    head = '%s %s(%s)' % ('function' if isfunc else 'subroutine', name, ', '.join(names))
    if bindc:
        head += ' bind(C, name="%s")' % bindc
    if isfunc:
        head += ' result(r)'
    lines = wrap('    ' + head, 4)
    lines.append('      import')
    lines.append('      implicit none')
    for p in f.params:
        t = ftype(p, f08, bindc)
        if p.kind == 'proc':
            lines.append('      external :: %s' % p.name)
            continue
        attrs = t
        if p.kind == 'buffer' or p.kind == 'addr' and not f08:
            if not f08:
                lines.append('      !GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % p.name)
            if f08 and asynchronous(f):
                attrs += ', asynchronous'
            if f08 and p.kind == 'buffer' and not p.out:
                attrs += ', intent(in)'
        if not p.out and p.kind not in ('buffer', 'addr') and not (p.kind == 'handle' and p.array
                                                            and p.out):
            attrs += ', intent(in)'
        dims = ''
        if p.kind == 'ranges':
            dims = '(3, *)'
        elif p.rows:
            dims = '(%s, *)' % p.rows
        elif p.kind == 'status' and not f08:
            dims = '(MPI_STATUS_SIZE, *)' if p.array else '(MPI_STATUS_SIZE)'
        elif p.array:
            dims = '(*)'
        lines.append('      %s :: %s%s' % (attrs, p.name, dims))
    if isfunc:
        t = {'double': 'double precision', 'MPI_Aint': 'integer(kind=MPI_ADDRESS_KIND)'}[f.ret]
        lines.append('      %s :: r' % t)
        lines.append('    end function')
    else:
        ik = 'integer(c_int)' if bindc else 'integer'
        lines.append('      %s%s, intent(out) :: ierror' % (ik, ', optional' if f08 else ''))
        lines.append('    end subroutine')
    return lines


def constants(defines, f08):
    """(type, name, value) of every Fortran constant, from mpi.h's #defines."""
    res = []
    skip = ('MPI_T_', 'MPI_F_', 'MPI_F08_', 'MPI_BOTTOM', 'MPI_IN_PLACE', 'MPI_STATUS',
            'MPI_ERRCODES', 'MPI_ARGV', 'MPI_UNWEIGHTED', 'MPI_WEIGHTS', 'MPI_BUFFER_AUTO')
    values = {}
    for name, v in defines:
        if name.startswith(skip):
            continue
        m = re.match(r'^\(\((MPI_\w+)\)(-?(?:0x[0-9a-f]+|\d+))\)$', v)
        if m:
            t, val = m.group(1), int(m.group(2), 0)
            if t in HANDLES:
                res.append((t, name, val))
            elif t == 'MPI_Offset':
                res.append(('offset', name, val))
            values[name] = (res[-1][0], val)
            continue
        m = re.match(r'^\(?(-?(?:0x[0-9a-f]+|\d+))\)?$', v)
        if m:
            res.append(('int', name, int(m.group(1), 0)))
            values[name] = ('int', int(m.group(1), 0))
            continue
        if v in values:
            res.append((values[v][0], name, values[v][1]))
    res += [('int', 'MPI_STATUS_SIZE', 6), ('int', 'MPI_SOURCE', 1), ('int', 'MPI_TAG', 2),
            ('int', 'MPI_ERROR', 3), ('int', 'MPI_ADDRESS_KIND', 8), ('int', 'MPI_OFFSET_KIND', 8),
            ('int', 'MPI_COUNT_KIND', 8), ('int', 'MPI_INTEGER_KIND', 4),
            ('logical', 'MPI_SUBARRAYS_SUPPORTED', False),
            ('logical', 'MPI_ASYNC_PROTECTS_NONBLOCKING', f08)]
    return res


# Special addresses: common blocks that fortran/f_util.c defines and the glue
# recognizes by address.
COMMONS = [
    ('integer', 'MPI_BOTTOM', '', 'mpi_fortran_bottom'),
    ('integer', 'MPI_IN_PLACE', '', 'mpi_fortran_in_place'),
    ('integer', 'MPI_BUFFER_AUTOMATIC', '', 'mpi_fortran_buffer_automatic'),
    ('integer', 'MPI_ERRCODES_IGNORE', '(1)', 'mpi_fortran_errcodes_ignore'),
    ('integer', 'MPI_UNWEIGHTED', '(1)', 'mpi_fortran_unweighted'),
    ('integer', 'MPI_WEIGHTS_EMPTY', '(1)', 'mpi_fortran_weights_empty'),
    ('character(len=1)', 'MPI_ARGV_NULL', '(1)', 'mpi_fortran_argv_null'),
    ('character(len=1)', 'MPI_ARGVS_NULL', '(1, 1)', 'mpi_fortran_argvs_null'),
]
F77_STATUS_COMMONS = [
    ('integer', 'MPI_STATUS_IGNORE', '(MPI_STATUS_SIZE)', 'mpi_fortran_status_ignore'),
    ('integer', 'MPI_STATUSES_IGNORE', '(MPI_STATUS_SIZE, 1)', 'mpi_fortran_statuses_ignore'),
]
F08_STATUS_COMMONS = [
    ('type(MPI_Status)', 'MPI_STATUS_IGNORE', '', 'mpi_fortran_f08_status_ignore'),
    ('type(MPI_Status)', 'MPI_STATUSES_IGNORE', '(1)', 'mpi_fortran_f08_statuses_ignore'),
]
# Fortran versions of the predefined callbacks (fortran/f_callback.c).
CALLBACKS = ['MPI_COMM_NULL_COPY_FN', 'MPI_COMM_NULL_DELETE_FN', 'MPI_COMM_DUP_FN',
             'MPI_TYPE_NULL_COPY_FN', 'MPI_TYPE_NULL_DELETE_FN', 'MPI_TYPE_DUP_FN',
             'MPI_WIN_NULL_COPY_FN', 'MPI_WIN_NULL_DELETE_FN', 'MPI_WIN_DUP_FN',
             'MPI_NULL_COPY_FN', 'MPI_NULL_DELETE_FN', 'MPI_DUP_FN', 'MPI_CONVERSION_FN_NULL']
# mpi_f08's only: for the large-count MPI_Register_datarep_c.
CALLBACKS_F08 = ['MPI_CONVERSION_FN_NULL_C']


def write_mpif(consts, funcs):
    """mpif.h: valid as fixed and as free form (statements from column 7,
    under 72 columns, no continuation lines)."""
    out = ['! Generated by fortran/gen.py from include/mpi.h: do not edit.',
           '! rdmpi mpif.h: constants and special addresses of MPI for Fortran.']
    for t, name, v in consts:
        if t in HANDLES or t == 'int':
            out.append('      INTEGER %s' % name)
            out.append('      PARAMETER (%s=%d)' % (name, v))
        elif t == 'offset':
            out.append('      INTEGER*8 %s' % name)
            out.append('      PARAMETER (%s=%d)' % (name, v))
        elif t == 'logical':
            out.append('      LOGICAL %s' % name)
            out.append('      PARAMETER (%s=%s)' % (name, '.TRUE.' if v else '.FALSE.'))
    for t, name, dims, common in COMMONS + F77_STATUS_COMMONS:
        t = 'CHARACTER*1' if t.startswith('character') else t.upper()
        out.append('      %s %s%s' % (t, name, dims.replace(' ', '')))
        out.append('      COMMON /%s/ %s' % (common, name))
    for f in funcs:
        if f.ret != 'int':
            t = {'double': 'DOUBLE PRECISION', 'MPI_Aint': 'INTEGER*8'}[f.ret]
            out.append('      %s %s, P%s' % (t, f.name.upper(), f.name.upper()))
            out.append('      EXTERNAL %s, P%s' % (f.name.upper(), f.name.upper()))
    for cb in CALLBACKS:
        out.append('      EXTERNAL %s' % cb)
    for l in out:
        if len(l) > 72:
            die('mpif.h line over 72 columns: %s' % l)
    return '\n'.join(out) + '\n'


def fortran_consts(consts, f08):
    out = []
    for t, name, v in consts:
        if t in HANDLES and f08:
            out.append('  type(%s), parameter :: %s = %s(%d)' % (t, name, t, v))
        elif t in HANDLES or t == 'int':
            out.append('  integer, parameter :: %s = %d' % (name, v))
        elif t == 'offset':
            out.append('  integer(kind=8), parameter :: %s = %d' % (name, v))
        elif t == 'logical':
            out.append('  logical, parameter :: %s = %s' % (name, '.true.' if v else '.false.'))
    commons = COMMONS + (F08_STATUS_COMMONS if f08 else F77_STATUS_COMMONS)
    for t, name, dims, common in commons:
        out.append('  %s :: %s%s' % (t, name, dims))
        out.append('  common /%s/ %s' % (common, name))
        out.append('  save /%s/' % common)
    for cb in CALLBACKS + (CALLBACKS_F08 if f08 else []):
        out.append('  external :: %s' % cb)
    return out


# MPI_SIZEOF's specific procedures: every intrinsic type and kind gfortran
# has, of any rank.
SIZEOF_TYPES = [('integer', k) for k in (1, 2, 4, 8, 16)] + \
    [('real', k) for k in (4, 8, 10, 16)] + [('complex', k) for k in (4, 8, 10, 16)] + \
    [('logical', k) for k in (1, 2, 4, 8)] + [('character', 1)]


def sizeof_procs(f08):
    iface, body = ['  interface MPI_Sizeof'], []
    for t, k in SIZEOF_TYPES:
        n = 'rdmpi_sizeof_%s%d' % (t, k)
        iface.append('    module procedure %s' % n)
        decl = 'character(len=*)' if t == 'character' else '%s(kind=%d)' % (t, k)
        body += ['  subroutine %s(x, size, ierror)' % n,
                 '    %s, dimension(..), intent(in) :: x' % decl,
                 '    integer, intent(out) :: size',
                 '    integer%s, intent(out) :: ierror' % (', optional' if f08 else ''),
                 '    size = int(storage_size(x) / 8)'
                 + (' / len(x)' if t == 'character' else ''),
                 '    %sierror = MPI_SUCCESS' % ('if (present(ierror)) ' if f08 else ''),
                 '  end subroutine']
    iface.append('  end interface')
    return iface, body


def extra_interfaces(f08):
    """MPI_F_sync_reg, and mpi_f08's MPI_Status_f2f08 and f082f."""
    out = ['  interface']
    out += ['    subroutine MPI_F_sync_reg(buf)%s' % (' bind(C, name="rdmpi_f08_f_sync_reg")'
                                                      if f08 else ''),
            '      implicit none']
    if f08:
        out.append('      type(*), dimension(..) :: buf')
    else:
        out += ['      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf', '      type(*), dimension(*) :: buf']
    out += ['    end subroutine']
    if f08:
        for a, b in (('f_status', 'f08_status'), ('f08_status', 'f_status')):
            name = 'MPI_Status_%s' % ('f2f08' if a == 'f_status' else 'f082f')
            out += ['    subroutine %s(%s, %s, ierror)' % (name, a, b), '      import',
                    '      implicit none']
            for n, io in ((a, 'in'), (b, 'out')):
                t = 'integer' if n == 'f_status' else 'type(MPI_Status)'
                d = '(MPI_STATUS_SIZE)' if n == 'f_status' else ''
                out.append('      %s, intent(%s) :: %s%s' % (t, io, n, d))
            out += ['      integer, optional, intent(out) :: ierror', '    end subroutine']
    out.append('  end interface')
    return out


def write_mpi_module(consts, funcs):
    out = ['! Generated by fortran/gen.py from include/mpi.h and fortran/api.txt: do not edit.',
           'module mpi', '  implicit none', '  public']
    out += fortran_consts(consts, False)
    # PMPI_FOO is pmpi_foo_ itself, MPI_FOO its weak alias (a tool's).
    out.append('  interface')
    for f in funcs:
        if f.name.endswith('_c'):
            continue
        out += f_interface(f, False)
        out += f_interface(f, False, 'P' + f.name)
    out.append('  end interface')
    out += extra_interfaces(False)
    iface, body = sizeof_procs(False)
    out += iface
    out.append('contains')
    out += body
    out.append('end module mpi')
    return '\n'.join(out) + '\n'


def kinds(f):
    k8 = {'aint': 'i8', 'count': 'i8', 'offset': 'i8'}
    return [(k8.get(p.kind, p.kind), p.array) for p in f.params]


# The callback prototypes of mpi_f08, for PROCEDURE(...) declarations:
# the user op, then per object kind its attribute copy and delete
# functions and its error handler.
def f08_abstract():
    out = ['  abstract interface',
           '    subroutine MPI_User_function(invec, inoutvec, len, datatype)', '      import',
           '      type(c_ptr), value :: invec, inoutvec', '      integer :: len',
           '      type(MPI_Datatype) :: datatype', '    end subroutine',
           '    subroutine MPI_User_function_c(invec, inoutvec, len, datatype)', '      import',
           '      type(c_ptr), value :: invec, inoutvec', '      integer(kind=MPI_COUNT_KIND) :: len',
           '      type(MPI_Datatype) :: datatype', '    end subroutine']
    for kind, htype, obj in (('Comm', 'MPI_Comm', 'comm'), ('Type', 'MPI_Datatype', 'datatype'),
                             ('Win', 'MPI_Win', 'win')):
        old, key = 'old' + kind.lower(), kind.lower() + '_keyval'
        out += ['    subroutine MPI_%s_copy_attr_function(%s, %s, extra_state, attribute_val_in, &'
                % (kind, old, key), '        attribute_val_out, flag, ierror)', '      import',
                '      type(%s) :: %s' % (htype, old), '      integer :: %s, ierror' % key,
                '      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, '
                'attribute_val_out', '      logical :: flag', '    end subroutine',
                '    subroutine MPI_%s_delete_attr_function(%s, %s, attribute_val, extra_state, &'
                % (kind, obj, key), '        ierror)', '      import',
                '      type(%s) :: %s' % (htype, obj), '      integer :: %s, ierror' % key,
                '      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state',
                '    end subroutine']
    for kind, htype, obj in (('Comm', 'MPI_Comm', 'comm'), ('Win', 'MPI_Win', 'win'),
                             ('File', 'MPI_File', 'file'), ('Session', 'MPI_Session', 'session')):
        out += ['    subroutine MPI_%s_errhandler_function(%s, error_code)' % (kind, obj),
                '      import', '      type(%s) :: %s' % (htype, obj), '      integer :: error_code',
                '    end subroutine']
    out += ['    subroutine MPI_Grequest_query_function(extra_state, status, ierror)', '      import',
            '      integer(kind=MPI_ADDRESS_KIND) :: extra_state', '      type(MPI_Status) :: status',
            '      integer :: ierror', '    end subroutine',
            '    subroutine MPI_Grequest_free_function(extra_state, ierror)', '      import',
            '      integer(kind=MPI_ADDRESS_KIND) :: extra_state', '      integer :: ierror',
            '    end subroutine',
            '    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)',
            '      import', '      integer(kind=MPI_ADDRESS_KIND) :: extra_state',
            '      logical :: complete', '      integer :: ierror', '    end subroutine',
            '    subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)',
            '      import', '      type(MPI_Datatype) :: datatype',
            '      integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state',
            '      integer :: ierror', '    end subroutine']
    for suffix, count in (('', 'integer'), ('_c', 'integer(kind=MPI_COUNT_KIND)')):
        out += ['    subroutine MPI_Datarep_conversion_function%s(userbuf, datatype, count, &'
                % suffix, '        filebuf, position, extra_state, ierror)', '      import',
                '      type(c_ptr), value :: userbuf, filebuf',
                '      type(MPI_Datatype) :: datatype', '      %s :: count' % count,
                '      integer(kind=MPI_OFFSET_KIND) :: position',
                '      integer(kind=MPI_ADDRESS_KIND) :: extra_state', '      integer :: ierror',
                '    end subroutine']
    return out + ['  end interface']


def f08_tool_trampoline(f):
    """rdmpi_tool_foo_f08ts: BIND(C) like the interface, it hands the
    descriptors to a tool's plain Fortran MPI_Foo_f08ts, which C passes as
    the procedure pointer tool (see c_tool)."""
    name = 'rdmpi_tool_' + f.lname[4:] + '_f08ts'
    types = sorted({p.handle for p in f.params if p.kind == 'handle'}
                   | {'MPI_Status' for p in f.params if p.kind == 'status'})
    use = ', '.join(types + ['MPI_ADDRESS_KIND', 'MPI_OFFSET_KIND', 'MPI_COUNT_KIND'])
    lines = [l for l in f_interface(f, True, name, name) if l.strip() != 'import']
    lines[0] = lines[0].replace('%s(' % name, '%s(tool, ' % name, 1)
    head = lines.index('      implicit none')
    lines[head:head] = ['      use, intrinsic :: iso_c_binding, only: c_int, c_funptr, '
                        'c_f_procpointer', '      use mpi_f08, only: %s' % use]
    lines[head + 3:head + 3] = ['      abstract interface'] + \
        ['    ' + l for l in f_interface(f, True, 'tool_proc')] + \
        ['      end interface', '      type(c_funptr), value :: tool',
         '      procedure(tool_proc), pointer :: p']
    args = ', '.join([p.name for p in f.params] + ['ierror'])
    lines[-1:-1] = ['      call c_f_procpointer(tool, p)'] + wrap('      call p(%s)' % args, 6)
    return [l[4:] for l in lines]


def write_f08_module(consts, funcs):
    out = ['! Generated by fortran/gen.py from include/mpi.h and fortran/api.txt: do not edit.',
           'module mpi_f08', '  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_ptr',
           '  implicit none', '  private :: c_int, c_long_long', '  public']
    for t in HANDLES:
        out += ['  type, bind(C) :: %s' % t, '    integer(c_int) :: MPI_VAL', '  end type']
    # MPI_Status's members: the C glue uses a TYPE(MPI_Status) in place.
    out += ['  type, bind(C) :: MPI_Status',
            '    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
            '    integer(c_int) :: rdmpi_cancelled', '    integer(c_long_long) :: rdmpi_count',
            '  end type']
    out += fortran_consts(consts, True)
    # The standard requires == and /= on handles.
    out.append('  interface operator(==)')
    out += ['    module procedure rdmpi_eq_%s' % h[4:].lower() for h in HANDLES]
    out.append('  end interface')
    out.append('  interface operator(/=)')
    out += ['    module procedure rdmpi_ne_%s' % h[4:].lower() for h in HANDLES]
    out.append('  end interface')
    byname = {}
    for f in funcs:
        # A _c form whose only difference is its procedure argument
        # (MPI_Op_create_c) has a name of its own: a generic cannot tell
        # EXTERNAL procedures apart.
        large = f.name.endswith('_c') and not any(p.kind == 'proc' for p in f.params)
        byname.setdefault(f.name[:-2] if large else f.name, []).append(f)
    # Every routine is a generic MPI_Foo and its twin PMPI_Foo over the
    # standard's specific procedures (MPI-4.1 section 19.1.5): MPI_Foo_f08,
    # MPI_Foo_c_f08, MPI_Foo_f08ts (choice buffer), MPI_Foo_c_f08ts, all
    # weak symbols of the C glue that a tool may replace.  Those with a
    # choice buffer are BIND(C): the glue gets the descriptor itself.
    tools = []
    for base, fs in byname.items():
        bodies, pbodies = [], []
        for f in fs:
            large = f.name.endswith('_c')
            # MPI_Aint and MPI_Count are both 8 bytes: a _c form that differs
            # only in those would be ambiguous, and the standard omits it.
            if large and len(fs) > 1 and kinds(f) == kinds(fs[0]):
                continue
            if f.has_buffer():
                spec = f.name + '_f08ts'
                bodies += f_interface(f, True, spec, spec)
                pbodies += f_interface(f, True, 'P' + spec, 'P' + spec)
                tools += f08_tool_trampoline(f)
            else:
                spec = f.name + '_f08'
                bodies += f_interface(f, True, spec)
                pbodies += f_interface(f, True, 'P' + spec)
        for name, b in ((base, bodies), ('P' + base, pbodies)):
            out += ['  interface %s' % name] + b + ['  end interface']
    out += extra_interfaces(True)
    out += f08_abstract()
    iface, body = sizeof_procs(True)
    out += iface
    out.append('contains')
    out += body
    for h in HANDLES:
        s = h[4:].lower()
        for op, rel in (('eq', '=='), ('ne', '/=')):
            out += ['  elemental logical function rdmpi_%s_%s(a, b)' % (op, s),
                    '    type(%s), intent(in) :: a, b' % h,
                    '    rdmpi_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' % (op, s, rel),
                    '  end function']
    out.append('end module mpi_f08')
    return '\n'.join(out + tools) + '\n'


def put(outdir, name, text):
    path = os.path.join(outdir, name)
    with open(path + '.tmp', 'w') as fp:
        fp.write(text)
    os.replace(path + '.tmp', path)


def main():
    if len(sys.argv) != 4:
        die('usage: gen.py MPI_H API_TXT OUTDIR')
    api = read_api(sys.argv[2])
    funcs, defines = parse_c(sys.argv[1], api)
    have = {f.name for f in funcs}
    for sig in api['special']:
        f = parse_special(sig)
        if f.name in have:
            die('%s is both generated and special' % f.name)
        funcs.append(f)
    funcs.sort(key=lambda f: f.name)
    outdir = sys.argv[3]
    put(outdir, 'glue.c', write_glue(funcs))
    put(outdir, 'mpif.h', write_mpif(constants(defines, False), funcs))
    put(outdir, 'mpi.f90', write_mpi_module(constants(defines, False), funcs))
    put(outdir, 'mpi_f08.f90', write_f08_module(constants(defines, True), funcs))


main()
